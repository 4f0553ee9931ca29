#include "tests/slurm/local_slurm.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

#include <csignal>
#include <random>
#include <thread>
#include <unistd.h>

namespace beamscope::test {

namespace {

qint64 readPid(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return f.readAll().trimmed().toLongLong();
}

bool alive(qint64 pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

// Polls until `ready` or the time is up.
template <typename F>
bool waitFor(F ready, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (ready())
            return true;
        QThread::msleep(100);
    }
    return ready();
}

QString run(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    p.waitForFinished(30000);
    return QString::fromLocal8Bit(p.readAllStandardOutput() + p.readAllStandardError());
}

} // namespace

QString LocalSlurm::unavailableReason()
{
    for (const char *program : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(program),
                                           {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin"),
                                            QStringLiteral("/sbin"), QStringLiteral("/bin")})
                .isEmpty())
            return QStringLiteral("%1 is not installed (Debian: apt-get install slurm-wlm munge; "
                                  "packaging/install-deps.sh does)")
                .arg(QString::fromLatin1(program));
    if (::geteuid() != 0)
        return QStringLiteral("slurmd runs jobs as their users and must be started as root");
    return {};
}

QString LocalSlurm::confPath() const { return m_dir.filePath(QStringLiteral("slurm.conf")); }

QString LocalSlurm::logs() const
{
    QString out;
    for (const char *name : {"slurmctld.log", "slurmd.log", "munged.log"}) {
        QFile f(m_dir.filePath(QString::fromLatin1(name)));
        if (f.open(QIODevice::ReadOnly))
            out += QStringLiteral("== %1\n%2\n")
                       .arg(QString::fromLatin1(name), QString::fromLocal8Bit(f.readAll().right(3000)));
    }
    return out;
}

bool LocalSlurm::start(QString *why)
{
    if (!m_dir.isValid()) {
        *why = QStringLiteral("no temporary folder");
        return false;
    }
    const QString d = m_dir.path();
    for (const char *sub : {"state", "spool"})
        QDir(d).mkpath(QString::fromLatin1(sub));
    // A key of our own: the machine's munge key (if any) is not read.
    QFile key(d + QStringLiteral("/munge.key"));
    std::random_device rd;
    QByteArray bytes(1024, '\0');
    for (char &c : bytes)
        c = static_cast<char>(rd());
    if (!key.open(QIODevice::WriteOnly) || key.write(bytes) != bytes.size()) {
        *why = QStringLiteral("cannot write the munge key");
        return false;
    }
    key.close();
    key.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QString socket = d + QStringLiteral("/munge.socket");
    run(QStringLiteral("munged"),
        {QStringLiteral("--key-file=") + d + QStringLiteral("/munge.key"), QStringLiteral("--socket=") + socket,
         QStringLiteral("--pid-file=") + d + QStringLiteral("/munged.pid"),
         QStringLiteral("--log-file=") + d + QStringLiteral("/munged.log"),
         QStringLiteral("--seed-file=") + d + QStringLiteral("/munge.seed"), QStringLiteral("--force")});
    if (!waitFor([&] { return alive(m_munged = readPid(d + QStringLiteral("/munged.pid"))); }, 10000)) {
        *why = QStringLiteral("munged did not start:\n") + logs();
        return false;
    }
    // Ports of our own, away from a Slurm the machine may run (6817/6818).
    const int base = 20000 + static_cast<int>(::getpid() % 20000) * 2;
    const QString conf =
        QStringLiteral("ClusterName=beamscope-test\n"
                       "SlurmctldHost=localhost(127.0.0.1)\n"
                       "SlurmUser=root\nSlurmdUser=root\n"
                       "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%1/munge.socket\n"
                       "SlurmctldPort=%2\nSlurmdPort=%3\n"
                       "StateSaveLocation=%1/state\nSlurmdSpoolDir=%1/spool\n"
                       "SlurmctldPidFile=%1/slurmctld.pid\nSlurmdPidFile=%1/slurmd.pid\n"
                       "SlurmctldLogFile=%1/slurmctld.log\nSlurmdLogFile=%1/slurmd.log\n"
                       "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\n"
                       "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
                       "ReturnToService=2\nJobAcctGatherType=jobacct_gather/none\n"
                       "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
                       "SlurmctldTimeout=30\nSlurmdTimeout=30\nMinJobAge=600\n"
                       "NodeName=localhost NodeAddr=127.0.0.1 CPUs=%4 State=UNKNOWN\n"
                       "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n")
            .arg(d)
            .arg(base)
            .arg(base + 1)
            .arg(std::max(2u, std::thread::hardware_concurrency()));
    QFile confFile(confPath());
    if (!confFile.open(QIODevice::WriteOnly) || confFile.write(conf.toUtf8()) < 0) {
        *why = QStringLiteral("cannot write slurm.conf");
        return false;
    }
    confFile.close();
    qputenv("SLURM_CONF", confPath().toLocal8Bit());
    m_started = true;
    run(QStringLiteral("slurmctld"), {QStringLiteral("-f"), confPath()});
    if (!waitFor([&] { return alive(m_slurmctld = readPid(d + QStringLiteral("/slurmctld.pid"))); }, 15000)) {
        *why = QStringLiteral("slurmctld did not start:\n") + logs();
        return false;
    }
    run(QStringLiteral("slurmd"), {QStringLiteral("-f"), confPath()});
    if (!waitFor([&] { return alive(m_slurmd = readPid(d + QStringLiteral("/slurmd.pid"))); }, 15000)) {
        *why = QStringLiteral("slurmd did not start:\n") + logs();
        return false;
    }
    const bool idle = waitFor(
        [&] {
            return run(QStringLiteral("sinfo"), {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%T")})
                .contains(QStringLiteral("idle"));
        },
        30000);
    if (!idle)
        *why = QStringLiteral("the node did not become idle:\n") + logs();
    return idle;
}

void LocalSlurm::stop()
{
    if (!m_started && !m_munged)
        return;
    if (m_started) // the jobs of this cluster only: SLURM_CONF names ours
        run(QStringLiteral("scancel"), {QStringLiteral("--user=root")});
    for (qint64 *pid : {&m_slurmd, &m_slurmctld, &m_munged}) {
        if (alive(*pid)) {
            ::kill(static_cast<pid_t>(*pid), SIGTERM);
            if (!waitFor([&] { return !alive(*pid); }, 10000))
                ::kill(static_cast<pid_t>(*pid), SIGKILL);
        }
        *pid = 0;
    }
    // Jobs slurmd started and left behind (a killed test) go with it.
    m_started = false;
    qunsetenv("SLURM_CONF");
}

} // namespace beamscope::test
