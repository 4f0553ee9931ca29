#include "ui/pipeline/benchmark_panel.h"

#include "core/bench/benchmark.h"
#include "core/bench/targets.h"
#include "core/gpu/device_facts.h"
#include "core/pipelines/pipeline.h"
#include "core/session/search_session.h"
#include "core/util/duration_text.h"
#include "ui/common/cuda_availability.h"
#include "ui/common/number_format.h"
#include "ui/common/relay_progress.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace beamscope::ui {

namespace {

QString ms(double v) { return QString::fromStdString(millisecondsText(v)); }

struct JobSettings {
    std::string pipeline;
    std::string target;
    bool gpuSchedule = false;
    int reps = 10;
    SearchStateOffer state; // set: time this Search state instead
};

// A Search state, measured as the Search workspace's Measure does (the session's own build and checks).
BenchmarkOutcome runStateBenchmark(const JobSettings &settings, Progress &progress)
{
    BenchmarkOutcome out;
    out.pipeline = QString::fromStdString(settings.pipeline);
    out.schedule = QObject::tr("Search state %1").arg(settings.state.label);
    const session::StateMeasurement m =
        settings.state.session->measure(settings.state.decisions, settings.target, &progress);
    out.ok = m.ok;
    out.failure = m.ok ? QString() : progress.cancelled() ? QStringLiteral("cancelled") : QStringLiteral("failed");
    out.message = QString::fromStdString(m.error);
    out.target = QString::fromStdString(m.target);
    out.minMs = m.minMs;
    out.medianMs = m.medianMs;
    out.checked = m.checked;
    out.matches = m.matches;
    if (settings.target == "opencl" && !gpu::queryLocalDevice().device)
        out.note = QObject::tr("OpenCL runs on the device the ICD offers; with no GPU here that is PoCL's CPU "
                               "device, so these are CPU timings");
    return out;
}

// Runs on a worker thread: the same core calls as `beamscope-cli bench`.
BenchmarkOutcome runBenchmark(const JobSettings &settings, Progress &progress)
{
    using namespace beamscope::bench;
    BenchmarkOutcome out;
    out.pipeline = QString::fromStdString(settings.pipeline);
    const auto info = pipelines::findPipeline(settings.pipeline);
    const auto kind = parseTargetKind(settings.target);
    if (!info || !kind) {
        out.failure = QStringLiteral("invalid");
        out.message = !info ? QObject::tr("no pipeline named '%1' in the registry").arg(out.pipeline)
                            : QObject::tr("unknown target '%1'").arg(QString::fromStdString(settings.target));
        return out;
    }
    const gpu::LocalDeviceQuery local = gpu::queryLocalDevice();
    BenchRequest request;
    request.build = info->build;
    request.schedule = settings.gpuSchedule ? Schedule::gpu() : Schedule::unscheduled();
    request.target = benchTarget(*kind, local);
    RunOptions run;
    run.reps = settings.reps;
    const Measurement m = benchmark(request, CompileOptions{}, run, &progress);

    out.ok = m.ok;
    out.failure = m.ok ? QString() : QString::fromLatin1(failureName(m.failure));
    out.message = QString::fromStdString(m.message);
    out.schedule = QString::fromStdString(m.schedule);
    out.target = QString::fromStdString(m.target);
    out.reps = static_cast<int>(m.timesMs.size());
    out.minMs = m.minMs;
    out.medianMs = m.medianMs;
    out.checked = m.checked;
    out.matches = m.matches;
    out.mismatches = m.mismatches;
    out.values = m.values;
    out.maxAbsError = m.maxAbsError;
    out.compileSeconds = m.compileSeconds;
    out.cacheHit = m.cacheHit;
    if (*kind == TargetKind::OpenCL && !local.device)
        out.note = QObject::tr("OpenCL runs on the device the ICD offers; with no GPU here that is PoCL's CPU "
                               "device, so these are CPU timings");
    else if (*kind == TargetKind::Cuda && !local.device)
        out.note = QObject::tr("no CUDA device here (%1): the PTX compiled but cannot run")
                       .arg(QString::fromStdString(local.status));
    else if (*kind != TargetKind::Host && !settings.gpuSchedule)
        out.note = QObject::tr("unscheduled: this pipeline runs on the CPU even for a GPU target");
    return out;
}

} // namespace

BenchmarkPanel::BenchmarkPanel(QWidget *parent) : QWidget(parent)
{
    qRegisterMetaType<BenchmarkOutcome>();
    m_target = new QComboBox(this);
    m_target->addItem(tr("host (CPU)"), QStringLiteral("host"));
    m_target->addItem(tr("OpenCL"), QStringLiteral("opencl"));
    m_target->addItem(tr("CUDA"), QStringLiteral("cuda"));
    offerCudaOnlyWithDevice(m_target);
    m_schedule = new QComboBox(this);
    m_schedule->addItem(tr("Halide default (unscheduled)"), int(Unscheduled));
    m_schedule->addItem(tr("hand-written GPU schedule"), int(HandWrittenGpu));
    m_reps = new QSpinBox(this);
    m_reps->setRange(1, 100000);
    m_reps->setValue(10);
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(QStringLiteral("benchmarkRun"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("benchmarkCancel"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(10);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("benchmarkResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    auto *form = new QFormLayout;
    form->addRow(tr("Target"), m_target);
    form->addRow(tr("Schedule"), m_schedule);
    form->addRow(tr("Repetitions"), m_reps);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_result, 1);

    connect(m_run, &QPushButton::clicked, this, &BenchmarkPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &BenchmarkPanel::cancel);
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        // A GPU target is what the GPU schedule is for: pick it when there is one.
        const bool gpuTarget = m_target->currentData().toString() != QLatin1String("host");
        m_schedule->setCurrentIndex(gpuTarget && m_hasGpuSchedule ? 1 : 0);
        updateControls();
    });
    updateControls();
}

BenchmarkPanel::~BenchmarkPanel()
{
    // The worker thread holds the job too: this stops its worker process.
    if (m_job)
        m_job->cancel();
}

void BenchmarkPanel::setPipeline(const QString &name, bool hasGpuSchedule)
{
    m_pipeline = name;
    m_hasGpuSchedule = hasGpuSchedule;
    if (m_searchState.session && m_searchState.app != name) { // a state of another pipeline
        m_searchState = {};
        if (m_schedule->count() > 2)
            m_schedule->removeItem(2);
    }
    const bool gpuTarget = m_target->currentData().toString() != QLatin1String("host");
    m_schedule->setCurrentIndex(gpuTarget && m_searchState.session ? 2 : gpuTarget && hasGpuSchedule ? 1 : 0);
    if (m_state == State::Idle) {
        m_status->clear();
        m_result->clear();
        m_hasOutcome = false;
    }
    updateControls();
}

void BenchmarkPanel::setTarget(const QString &target)
{
    const int i = m_target->findData(target);
    if (i >= 0)
        m_target->setCurrentIndex(i);
}

void BenchmarkPanel::setGpuSchedule(bool gpu) { m_schedule->setCurrentIndex(gpu ? 1 : 0); }

void BenchmarkPanel::setSearchState(const SearchStateOffer &offer)
{
    m_searchState = offer;
    m_pipeline = offer.app;
    const QString text = tr("Search state %1").arg(offer.label);
    if (m_schedule->count() > 2)
        m_schedule->setItemText(2, text);
    else
        m_schedule->addItem(text, int(SearchState));
    if (m_target->currentData().toString() == QLatin1String("host"))
        setTarget(QStringLiteral("opencl")); // the search's schedules are GPU schedules
    m_schedule->setCurrentIndex(2);
    updateControls();
}

BenchmarkPanel::ScheduleChoice BenchmarkPanel::scheduleChoice() const
{
    return static_cast<ScheduleChoice>(m_schedule->currentData().toInt());
}

void BenchmarkPanel::setRepetitions(int reps) { m_reps->setValue(reps); }

void BenchmarkPanel::updateControls()
{
    const bool idle = m_state == State::Idle;
    const bool host = m_target->currentData().toString() == QLatin1String("host");
    m_target->setEnabled(idle);
    m_reps->setEnabled(idle);
    const bool gpuChoices = (m_hasGpuSchedule || m_searchState.session) && !host;
    m_schedule->setEnabled(idle && gpuChoices);
    if (!gpuChoices)
        m_schedule->setCurrentIndex(0);
    else if (!m_hasGpuSchedule && scheduleChoice() == HandWrittenGpu)
        m_schedule->setCurrentIndex(m_searchState.session ? 2 : 0);
    m_run->setEnabled(idle && !m_pipeline.isEmpty());
    m_cancel->setEnabled(m_state == State::Running);
    m_schedule->setToolTip(!gpuChoices && !m_hasGpuSchedule && !host
                               ? tr("%1 has no hand-written GPU schedule").arg(m_pipeline)
                           : host ? tr("a GPU schedule needs the OpenCL or CUDA target")
                                  : QString());
}

void BenchmarkPanel::setState(State state)
{
    m_state = state;
    updateControls();
}

void BenchmarkPanel::run()
{
    if (m_state != State::Idle || m_pipeline.isEmpty())
        return;
    JobSettings settings;
    settings.pipeline = m_pipeline.toStdString();
    settings.target = m_target->currentData().toString().toStdString();
    settings.gpuSchedule = scheduleChoice() == HandWrittenGpu;
    settings.reps = m_reps->value();
    if (scheduleChoice() == SearchState)
        settings.state = m_searchState;

    const quint64 generation = ++m_generation;
    // Both run on the GUI thread only after the receiver guard (RelayProgress's,
    // postToGui's) said this panel still exists.
    const auto isCurrent = [this, generation] { return m_generation == generation; };
    m_job = std::make_shared<RelayProgress>(this, isCurrent, [this](double fraction, const QString &message) {
        m_progress->setValue(static_cast<int>(fraction * 100));
        if (m_state == State::Running)
            m_status->setText(message);
        Q_EMIT progressed(fraction, message);
    });
    m_progress->setRange(0, 0); // compiling has no fractions to show: a busy bar until measuring starts
    m_status->setText(tr("compiling %1 for %2…").arg(m_pipeline, m_target->currentText()));
    m_result->clear();
    setState(State::Running);
    Q_EMIT started();

    auto job = m_job;
    QPointer<QObject> guard(this);
    auto future = QtConcurrent::run([this, job, settings, guard, isCurrent] {
        BenchmarkOutcome outcome =
            settings.state.session ? runStateBenchmark(settings, *job) : runBenchmark(settings, *job);
        postToGui(guard, [this, isCurrent, outcome] {
            if (isCurrent())
                deliver(outcome);
        });
    });
    Q_UNUSED(future);
}

void BenchmarkPanel::cancel()
{
    if (m_state != State::Running || !m_job)
        return;
    // The job stops at its next safe point (before measuring, or by killing
    // the worker process); its record, saying "cancelled", ends the run.
    m_job->cancel();
    m_status->setText(tr("cancelling… (a compilation in progress finishes first)"));
    setState(State::Cancelling);
}

void BenchmarkPanel::deliver(const BenchmarkOutcome &outcome)
{
    m_job.reset();
    m_outcome = outcome;
    m_hasOutcome = true;
    m_progress->setRange(0, 100);
    m_progress->setValue(outcome.ok ? 100 : 0);
    m_status->setText(outcome.ok                                      ? tr("done")
                      : outcome.failure == QLatin1String("cancelled") ? tr("cancelled")
                                                                      : tr("failed"));
    m_result->setText(resultText());
    setState(State::Idle);
    Q_EMIT finished(outcome);
}

QString BenchmarkPanel::resultText() const
{
    if (!m_hasOutcome)
        return {};
    const BenchmarkOutcome &o = m_outcome;
    QStringList lines;
    lines << tr("<b>%1</b> · schedule %2 · target <tt>%3</tt>")
                 .arg(o.pipeline.toHtmlEscaped(), o.schedule.toHtmlEscaped(), o.target.toHtmlEscaped());
    if (o.reps > 0)
        lines
            << tr("min <b>%1</b> · median <b>%2</b> over %3 repetitions").arg(ms(o.minMs), ms(o.medianMs)).arg(o.reps);
    else if (o.ok)
        lines << tr("min <b>%1</b> · median <b>%2</b>").arg(ms(o.minMs), ms(o.medianMs));
    if (o.checked)
        lines << (o.matches ? tr("<span style='color:#1a7f37'>✔ matches the host reference</span> (%1 values)")
                                  .arg(QString::number(o.values, 'f', 0))
                            : tr("<span style='color:#b42318'>✘ differs from the host reference</span>: %1 of %2 "
                                 "values, max abs error %3")
                                  .arg(QString::number(o.mismatches, 'f', 0), QString::number(o.values, 'f', 0),
                                       formatNumber(o.maxAbsError, 3)));
    if (!o.ok)
        lines << tr("<span style='color:#b42318'><b>failed (%1)</b></span>: %2")
                     .arg(o.failure.toHtmlEscaped(), o.message.toHtmlEscaped());
    if (o.cacheHit || o.compileSeconds > 0) // a Search state's measurement does not report its compile time
        lines << tr("compile: %1").arg(o.cacheHit ? tr("cached") : ms(o.compileSeconds * 1000.0));
    if (!o.note.isEmpty())
        lines << tr("<i>note: %1</i>").arg(o.note.toHtmlEscaped());
    return lines.join(QStringLiteral("<br>"));
}

} // namespace beamscope::ui
