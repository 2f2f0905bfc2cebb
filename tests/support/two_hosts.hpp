#pragma once
// Two hosts on one machine for the rank suites (test_sim_ranks, test_recon_ranks): host A is this process's own
// network namespace, where mpirun runs, as on a cluster's first node; host B a network namespace of the suite's
// own, joined to A by a veth pair on a /30 of 198.18.0.0/15 (the range RFC 2544 sets aside for tests). OpenMPI
// starts host B's daemon through an rsh agent that enters the namespace instead of ssh, and host B's ranks talk
// to host A's over TCP alone, as between machines (OpenMPI takes each address for a node of its own); the two
// share the file system, as over NFS, but not host names or /dev/shm. Needs root, iproute2 (`ip netns`) and
// util-linux (`unshare`); why() says what was missing.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <unistd.h>

#include <cstdlib>

namespace mrwb_test {

class TwoHosts {
 public:
  // The agent script goes into `dir`.
  explicit TwoHosts(const QString& dir) {
    if (geteuid() != 0) {
      why_ = "not root: no network namespace for a second host";
      return;
    }
    // One /30 per process, so that suites running at once have links of their own.
    const unsigned index = static_cast<unsigned>(getpid()) % 16384u, base = (198u << 24) | (18u << 16) | (index * 4u);
    auto dotted = [](unsigned a) {
      return QString("%1.%2.%3.%4").arg(a >> 24).arg((a >> 16) & 255u).arg((a >> 8) & 255u).arg(a & 255u);
    };
    a_ = dotted(base + 1);
    b_ = dotted(base + 2);
    cidr_ = dotted(base) + "/30";
    ns_ = QString("mrwb_host_b_%1").arg(getpid());
    const QString veth_a = QString("mwa%1").arg(getpid()), veth_b = QString("mwb%1").arg(getpid());
    ip({"netns", "delete", ns_});  // left by an earlier process of this pid, if any
    if (!ip({"netns", "add", ns_})) {
      why_ = "no network namespace (ip netns add: " + last_err_ + ")";
      return;
    }
    made_ = true;
    const QList<QStringList> steps = {
        {"link", "add", veth_a, "type", "veth", "peer", "name", veth_b},
        {"link", "set", veth_b, "netns", ns_},
        {"addr", "add", a_ + "/30", "dev", veth_a},
        {"link", "set", veth_a, "up"},
        {"netns", "exec", ns_, "ip", "addr", "add", b_ + "/30", "dev", veth_b},
        {"netns", "exec", ns_, "ip", "link", "set", veth_b, "up"},
        {"netns", "exec", ns_, "ip", "link", "set", "lo", "up"},
    };
    for (const QStringList& s : steps)
      if (!ip(s)) {
        why_ = "ip " + s.join(' ') + ": " + last_err_;
        return;
      }
    // OpenMPI calls the agent as `agent HOST COMMAND...`.
    agent_ = QDir(dir).filePath("enter_host_b.sh");
    QFile f(agent_);
    if (!f.open(QIODevice::WriteOnly)) {
      why_ = "cannot write " + agent_;
      return;
    }
    // Host B also has a host name (a UTS namespace) and a /dev/shm of its own (a mount namespace), as a machine
    // does: OpenMPI keys its session directory and shared-memory segments by host, and two hosts of one name and
    // one /dev/shm crashed its shared-memory transport (vader) here.
    f.write(QString("#!/bin/sh\n[ \"$1\" = \"%1\" ] || { echo \"enter_host_b: unknown host $1\" >&2; exit 1; }\nshift\n"
                    "exec ip netns exec %2 unshare --uts --mount --propagation private /bin/sh -c "
                    "'echo %3 >/proc/sys/kernel/hostname && mount -t tmpfs tmpfs /dev/shm && exec /bin/sh -c \"$1\"' "
                    "enter \"$*\"\n")
                .arg(b_, ns_, host_b_name())
                .toUtf8());
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    // The agent's namespaces and mount, tried once before mpirun leans on them.
    QProcess p;
    p.start(agent_, {b_, "cat /proc/sys/kernel/hostname"});
    if (!p.waitForFinished(20000) || p.exitCode() != 0 || p.readAllStandardOutput().trimmed() != host_b_name().toUtf8()) {
      why_ = "cannot enter host B (" + agent_ + "): " + QString::fromUtf8(p.readAllStandardError()).trimmed();
      return;
    }
    ok_ = true;
  }
  ~TwoHosts() {
    if (made_) ip({"netns", "delete", ns_});  // the veth pair goes with it
  }
  TwoHosts(const TwoHosts&) = delete;
  TwoHosts& operator=(const TwoHosts&) = delete;

  static QString host_b_name() { return "mrwb-host-b"; }
  bool ok() const { return ok_; }
  const QString& why() const { return why_; }

  // mpirun's arguments for `on_a` ranks on host A and `on_b` on host B (ranks 0 .. on_a − 1 on A), before the
  // program. Ranks on one host talk through shared memory, across hosts through TCP on the veth link only. The
  // variables named in `forward` that are set here reach host B's ranks too (host A's inherit everything), and
  // so do the sanitizers' options. OpenMPI takes each host's cores to be its ranks' alone and busy-polls; here the
  // two hosts share one machine's cores, so idle ranks yield (a 64-byte round trip between the hosts with both
  // cores loaded: 8.7 ms polling, 92 us yielding).
  QStringList mpirun_args(int on_a, int on_b, QStringList forward = {}) const {
    QStringList args = {"--allow-run-as-root", "--host", QString("%1:%2,%3:%4").arg(a_).arg(on_a).arg(b_).arg(on_b),
                        "-np", QString::number(on_a + on_b), "--mca", "plm_rsh_agent", agent_,
                        "--mca", "oob_tcp_if_include", cidr_, "--mca", "btl_tcp_if_include", cidr_,
                        "--mca", "btl", "self,vader,tcp", "--mca", "mpi_yield_when_idle", "1"};
    forward << "ASAN_OPTIONS" << "LSAN_OPTIONS" << "UBSAN_OPTIONS";
    for (const QString& v : forward)
      if (std::getenv(qPrintable(v))) args << "-x" << v;
    return args;
  }

 private:
  bool ip(const QStringList& args) {
    QProcess p;
    p.start("ip", args);
    if (!p.waitForStarted(10000)) {
      last_err_ = "ip not found (iproute2)";
      return false;
    }
    if (!p.waitForFinished(20000)) {
      last_err_ = "no answer";
      return false;
    }
    last_err_ = QString::fromUtf8(p.readAllStandardError()).trimmed();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  }

  bool ok_ = false, made_ = false;
  QString why_, last_err_, a_, b_, cidr_, ns_, agent_;
};

}  // namespace mrwb_test
