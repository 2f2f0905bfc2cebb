// What a command costs to start: a command that stays on the CPU never maps the CUDA libraries (they live
// in libmrwb_cuda.so, loaded when a command asks for auto or cuda: base/cuda_backends.hpp), so `mrwb
// --version`, `mrwb info` and a 32^2 simulation on the CPU each peak at <= 100 MB resident (280 MB when
// every command loaded cuFFT, cuBLAS and cuSOLVER). And the module, where it is built, registers its
// backends in the program's own registries.
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "process_runner.hpp"

namespace {

struct Footprint {
  int code = -1;
  long peak_rss_kb = 0;
};

// Runs mrwb with `args` (stdout and stderr to /dev/null), `env` added; its exit code and peak resident set.
Footprint run_measured(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv_s = {MRWB_CLI_PATH};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid == 0) {
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Footprint f;
  int status = 0;
  rusage usage{};
  if (pid > 0 && wait4(pid, &status, 0, &usage) == pid && WIFEXITED(status)) {
    f.code = WEXITSTATUS(status);
    f.peak_rss_kb = usage.ru_maxrss;  // kilobytes on Linux
  }
  return f;
}

constexpr long k_limit_kb = 100 * 1024;

// AddressSanitizer's shadow memory and quarantine are not the program's footprint (the 32^2 simulation
// peaks at 123 MB in the sanitize build): there only the exit codes are checked.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool k_sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool k_sanitized = true;
#else
constexpr bool k_sanitized = false;
#endif
#else
constexpr bool k_sanitized = false;
#endif

}  // namespace

class TestCliFootprint : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void cpuCommandsStayLight_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("env");
    QTest::newRow("--version") << QStringList{"--version"} << QStringList{};
    // On a machine with a GPU `mrwb info` loads the module to name the device; MRWB_CUDA=0 keeps it on the CPU.
    QTest::newRow("info") << QStringList{"info"} << QStringList{"MRWB_CUDA=0"};
    const QString scenario = QString(MRWB_SOURCE_DIR) + "/phantoms/teaching_inflow_spoiled_gre.json";  // 32^2
    QTest::newRow("simulate 32^2 --backend cpu")
        << QStringList{"simulate", "--scenario", scenario, "--backend", "cpu", "--quiet", "--out", dir_.filePath("raw.h5")}
        << QStringList{};
  }
  void cpuCommandsStayLight() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, env);
    std::vector<std::string> a, e;
    for (const QString& s : args) a.push_back(s.toStdString());
    for (const QString& s : env) e.push_back(s.toStdString());
    const Footprint f = run_measured(a, e);
    qInfo("mrwb %s: peak RSS %.1f MB", qPrintable(args.join(' ')), f.peak_rss_kb / 1024.0);
    QCOMPARE(f.code, 0);
    if (k_sanitized) QSKIP("AddressSanitizer build: resident memory is the sanitizer's, not the program's");
    QVERIFY2(f.peak_rss_kb <= k_limit_kb, qPrintable(QString::number(f.peak_rss_kb / 1024.0) + " MB"));
  }

  // MRWB_CUDA_MODULE loads the module even without a driver: its cuda backend then appears in the
  // program's list (registered, unavailable here), so the module's calls reached the program's registries.
  void moduleRegistersInTheProgram() {
#ifndef MRWB_CUDA_MODULE_PATH
    QSKIP("a build without CUDA has no module");
#else
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("MRWB_CUDA_MODULE", MRWB_CUDA_MODULE_PATH);
    p.setProcessEnvironment(env);
    p.start(MRWB_CLI_PATH, {"info"});
    QVERIFY(p.waitForFinished(120000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(out.contains("backend cuda: "), qPrintable(out));
    QVERIFY2(!out.contains("\ncuda: "), qPrintable(out));  // no reason why it is missing
#endif
  }
};

QTEST_GUILESS_MAIN(TestCliFootprint)
#include "test_cli_footprint.moc"
