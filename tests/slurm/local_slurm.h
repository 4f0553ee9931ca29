#pragma once
// A single-node Slurm for tests: munged, slurmctld and slurmd from Debian's
// munge and slurm-wlm, on 127.0.0.1 with ports of their own, every file in a
// temporary folder (a generated munge key and slurm.conf), started by the
// test and stopped by process id when it ends. Nothing else on the machine
// is touched: the daemons read only this slurm.conf (SLURM_CONF is set for
// the test process and the jobs it submits).

#include <QString>
#include <QTemporaryDir>

namespace beamscope::test {

class LocalSlurm {
public:
    LocalSlurm() = default;
    ~LocalSlurm() { stop(); }
    LocalSlurm(const LocalSlurm &) = delete;
    LocalSlurm &operator=(const LocalSlurm &) = delete;

    // Why this machine cannot run it (not root, a program missing); "" when it can.
    static QString unavailableReason();
    // Starts the daemons and waits until the node is idle; false with why.
    bool start(QString *why);
    void stop();
    QString confPath() const;
    QString logs() const; // the daemons' logs, for failure messages

private:
    QTemporaryDir m_dir;
    qint64 m_munged = 0, m_slurmctld = 0, m_slurmd = 0;
    bool m_started = false;
};

} // namespace beamscope::test
