#include "ui/common/cuda_availability.h"

#include "core/gpu/device_facts.h"
#include "ui/common/relay_progress.h"

#include <QComboBox>
#include <QFuture>
#include <QPointer>
#include <QStandardItemModel>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <mutex>
#include <vector>

namespace beamscope::ui {

namespace {

// The driver is asked once; every combo box waits on the same answer.
struct DeviceAnswer {
    std::once_flag started;
    std::mutex mutex;
    bool known = false;
    bool present = false;
    QString why;
    std::vector<std::function<void()>> waiting; // run on the GUI thread once known
};

DeviceAnswer &answer()
{
    static DeviceAnswer a;
    return a;
}

void apply(const QPointer<QComboBox> &combo, const QString &cudaValue, bool present, const QString &why)
{
    if (!combo || present)
        return;
    int index = combo->findData(cudaValue);
    if (index < 0)
        index = combo->findText(cudaValue);
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    if (index < 0 || !model)
        return;
    QStandardItem *item = model->item(index);
    item->setEnabled(false);
    item->setToolTip(QObject::tr("No CUDA device here: %1").arg(why));
    if (combo->currentIndex() == index)
        for (int i = 0; i < combo->count(); ++i)
            if (i != index) {
                combo->setCurrentIndex(i);
                break;
            }
}

} // namespace

void offerCudaOnlyWithDevice(QComboBox *combo, const QString &cudaValue)
{
    DeviceAnswer &a = answer();
    const QPointer<QComboBox> guard(combo);
    {
        std::lock_guard lock(a.mutex);
        if (a.known) {
            apply(guard, cudaValue, a.present, a.why);
            return;
        }
        a.waiting.push_back([guard, cudaValue] {
            DeviceAnswer &known = answer();
            apply(guard, cudaValue, known.present, known.why);
        });
    }
    std::call_once(a.started, [] {
        QPointer<QObject> app(QCoreApplication::instance());
        QFuture<void> f = QtConcurrent::run([app] {
            const gpu::LocalDeviceQuery q = gpu::queryLocalDevice();
            postToGui(app, [present = q.device.has_value(), why = QString::fromStdString(q.status)] {
                DeviceAnswer &d = answer();
                std::vector<std::function<void()>> waiting;
                {
                    std::lock_guard lock(d.mutex);
                    d.known = true;
                    d.present = present;
                    d.why = why;
                    waiting.swap(d.waiting);
                }
                for (const auto &w : waiting)
                    w();
            });
        });
        Q_UNUSED(f);
    });
}

} // namespace beamscope::ui
