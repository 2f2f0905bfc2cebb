// Outputs through the mrwb CLI, "nothing lost" (docs/input-limits.md, "Outputs"): an output that is one of the
// command's inputs (by identity: another spelling, a symbolic or hard link, a BART header) is refused and the input
// keeps its bytes and mtime; reading inputs changes none of them; an output path that is a folder, holds a name
// beyond NAME_MAX or is too long for PATH_MAX is refused before the work; a write that fails (a full disk: a small
// tmpfs, where the suite may mount one) leaves no output of the run, keeps a file it would have replaced, exits 2
// with one line and does not crash. OutputTransaction's own commit is checked in process.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "cli_refusal.hpp"
#include "files.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "process_runner.hpp"

namespace {

using mrwb_test::Run;

// A small valid scenario: 64² spoiled GRE on a uniform disc.
const QByteArray k_scenario = R"({"format": "mrwb-scenario", "version": 1,
  "phantom": {"preset": "uniform_disc", "cells_per_voxel": 1}, "sequence": {"matrix": 64, "dummy_scans": 2}})";

// Every file of a folder (hidden ones too) with its bytes and its mtime to the nanosecond.
struct FileState {
  QByteArray bytes;
  long long mtime_ns = 0;
  bool operator==(const FileState&) const = default;
};
std::map<QString, FileState> folder_state(const QString& dir) {
  std::map<QString, FileState> files;
  for (const QFileInfo& f : QDir(dir).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)) {
    struct stat st {};
    ::lstat(f.filePath().toLocal8Bit().constData(), &st);
    FileState s;
    s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    if (f.isFile() && !f.isSymLink()) s.bytes = QByteArray::fromStdString(mrwb::test::read_file(f.filePath().toStdString()));
    files[f.fileName()] = s;
  }
  return files;
}
QStringList names(const QString& dir) {
  return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot | QDir::System);
}

// Sets every file of `dir` to an mtime in 2001, so that a write within the same second is seen too.
bool age_files(const QString& dir) {
  const timespec t[2] = {{1000000000, 0}, {1000000000, 0}};
  for (const QString& n : names(dir))
    if (::utimensat(AT_FDCWD, (dir + "/" + n).toLocal8Bit().constData(), t, AT_SYMLINK_NOFOLLOW) != 0) return false;
  return true;
}

}  // namespace

class TestCliOutputs : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString in_, full_;
  bool mounted_ = false;
  int case_ = 0;
  QString out_dir_;

  QString in(const QString& name) const { return in_ + "/" + name; }
  QString out(const QString& name) const { return out_dir_ + "/" + name; }
  void fresh_out() {
    out_dir_ = dir_.filePath(QString("out%1").arg(++case_));
    QVERIFY(QDir().mkpath(out_dir_));
  }
  // IN/ and OUT/ in an argument: the input folder and this case's (empty) output folder.
  QStringList expanded(QStringList args, const QString& target = {}) const {
    for (QString& a : args) {
      a.replace("TARGET", target);
      if (a.startsWith("IN/")) a = in(a.mid(3));
      else if (a.startsWith("OUT/")) a = out(a.mid(4));
      else if (a.startsWith("FULL/")) a = full_ + "/" + a.mid(5);
    }
    return args;
  }
  static Run mrwb(const QStringList& args) { return mrwb_test::run_program(MRWB_CLI_PATH, args, 120000); }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    in_ = dir_.filePath("in");
    QVERIFY(QDir().mkpath(in_ + "/sub"));
    QVERIFY(mrwb::test::write_file(in("scenario.json"), k_scenario));
    const QString seq = qEnvironmentVariable("MRWB_SOURCE_DIR") + "/tests/data/pulseq/trufi_v131.seq";
    QVERIFY2(QFile::copy(seq, in("x.seq")), qPrintable(seq));
    for (const QString& raw : {QString("s.h5"), QString("k.cfl")}) {
      const Run r = mrwb({"simulate", "--scenario", in("scenario.json"), "--out", in(raw), "--quiet"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
    }
    const Run r = mrwb({"recon", "--in", in("s.h5"), "--out", in("img.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFile::link(in("s.h5"), in("link.h5")));
    QVERIFY(QFile::link(in("img.h5"), in("img_link.png")));
    QVERIFY(QFile::link(in("scenario.json"), in("scenario_link.vti")));
    QVERIFY(::link(in("scenario.json").toLocal8Bit().constData(), in("hard.h5").toLocal8Bit().constData()) == 0);
    QVERIFY(QDir().mkpath(in("folder.png")) && QDir().mkpath(in("folder.h5")) && QDir().mkpath(in("folder.nii")) &&
            QDir().mkpath(in("folder.seq")) && QDir().mkpath(in("folder.vti")) && QDir().mkpath(in("folder.json")));
    QVERIFY(age_files(in_));
    // A 64 KiB file system for the full-disk cases, where this process may mount one (root).
    full_ = dir_.filePath("full");
    QVERIFY(QDir().mkpath(full_));
    mounted_ = ::mount("tmpfs", full_.toLocal8Bit().constData(), "tmpfs", 0, "size=64k") == 0;
    // Filled but for 8 KiB: every output of the cases below is larger.
    if (mounted_) QVERIFY(mrwb::test::write_file(full_ + "/filler", QByteArray(56 * 1024, 'f')));
  }
  void cleanupTestCase() {
    if (mounted_) ::umount(full_.toLocal8Bit().constData());
  }

  // An output that is one of the command's inputs, by identity: refused in one line naming both, before anything is
  // written; every input keeps its bytes and mtime, nothing appears beside them.
  void outputIsAnInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expect");
    struct Row {
      const char* name;
      QStringList args;
      QString output;  // as the refusal names it, before ": the same file as the input "
    };
    const Row rows[] = {
        {"recon, the same path", {"recon", "--in", "IN/s.h5", "--out", "IN/s.h5"}, "in/s.h5"},
        {"recon, ./ spelling", {"recon", "--in", "IN/s.h5", "--out", "IN/./s.h5"}, "in/./s.h5"},
        {"recon, sub/.. spelling", {"recon", "--in", "IN/s.h5", "--out", "IN/sub/../s.h5"}, "sub/../s.h5"},
        {"recon, a symbolic link", {"recon", "--in", "IN/s.h5", "--out", "IN/link.h5"}, "link.h5"},
        {"recon, input through a link", {"recon", "--in", "IN/link.h5", "--out", "IN/s.h5"}, "in/s.h5"},
        // A BART name stands for both files: the output's .cfl is its input's.
        {"recon, the header of a BART input", {"recon", "--in", "IN/k.cfl", "--out", "IN/k.hdr"}, "in/k.cfl"},
        {"sequence --plot onto --in", {"sequence", "--in", "IN/x.seq", "--plot", "IN/x.seq"}, "x.seq"},
        {"sequence --out onto --scenario", {"sequence", "--scenario", "IN/scenario.json", "--out", "IN/scenario.json"},
         "scenario.json"},
        {"simulate --out, a hard link of --scenario", {"simulate", "--scenario", "IN/scenario.json", "--out", "IN/hard.h5"},
         "hard.h5"},
        {"simulate --truth onto --scenario",
         {"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/raw.h5", "--truth", "IN/hard.h5"}, "hard.h5"},
        {"compare --error-map onto --image",
         {"compare", "--image", "IN/img.h5", "--reference", "IN/img.h5", "--error-map", "IN/img_link.png"}, "img_link.png"},
        {"flow --out onto --scenario", {"flow", "--scenario", "IN/scenario.json", "--out", "IN/scenario_link.vti"},
         "scenario_link.vti"},
    };
    for (const Row& r : rows)
      QTest::newRow(r.name) << r.args
                            << QStringList{r.output + ": the same file as the input ",
                                           "allowed: an output that is none of the command's inputs"};
  }
  void outputIsAnInput() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, expect);
    fresh_out();
    const auto before = folder_state(in_);
    mrwb_test::expect_refused(out_dir_, expanded(args), expect);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(folder_state(in_) == before, "an input changed, or a file appeared beside the inputs");
  }

  // Reading changes no input: an ISMRMRD file was opened for writing and its mtime moved on every read.
  void readingKeepsInputs() {
    fresh_out();
    const auto before = folder_state(in_);
    for (const QStringList& args :
         {QStringList{"recon", "--in", "IN/s.h5", "--out", "OUT/a.png", "--quiet"},
          QStringList{"recon", "--in", "IN/link.h5", "--out", "OUT/b.png", "--quiet"},
          QStringList{"recon", "--in", "IN/k.cfl", "--out", "OUT/c.png", "--quiet"},
          QStringList{"compare", "--image", "IN/img.h5", "--reference", "IN/img.h5"},
          QStringList{"sequence", "--in", "IN/x.seq", "--info"},
          QStringList{"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/raw.h5", "--quiet"}}) {
      const Run r = mrwb(expanded(args));
      QVERIFY2(r.code == 0, qPrintable(args.join(' ') + "\n" + r.err));
    }
    QVERIFY2(folder_state(in_) == before, "reading changed an input's bytes or mtime");
  }

  // Output paths no file can take, at every verb that writes: exit 2 with one line naming the path and what is
  // allowed, before the work (no banner, no progress: the runs are not --quiet), nothing written.
  void unusableOutput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("ext");
    const QMap<QString, QPair<QStringList, QString>> writers = {
        {"recon --out", {{"recon", "--in", "IN/s.h5", "--out", "TARGET"}, ".png"}},
        {"recon --gfactor", {{"recon", "--in", "IN/s.h5", "--out", "OUT/i.png", "--gfactor", "TARGET"}, ".nii"}},
        {"simulate --out", {{"simulate", "--scenario", "IN/scenario.json", "--out", "TARGET"}, ".h5"}},
        {"simulate --truth", {{"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/r.h5", "--truth", "TARGET"}, ".nii"}},
        {"sequence --plot", {{"sequence", "--in", "IN/x.seq", "--plot", "TARGET"}, ".png"}},
        {"sequence --out", {{"sequence", "--scenario", "IN/scenario.json", "--out", "TARGET"}, ".seq"}},
        {"compare --error-map", {{"compare", "--image", "IN/img.h5", "--reference", "IN/img.h5", "--error-map", "TARGET"}, ".png"}},
        {"flow --out", {{"flow", "--scenario", "IN/scenario.json", "--out", "TARGET"}, ".vti"}},
        {"phantom --out", {{"phantom", "--preset", "default", "--out", "TARGET"}, ".json"}},
    };
    for (auto w = writers.begin(); w != writers.end(); ++w)
      for (const char* kind : {"folder", "long name", "long path"})
        QTest::newRow(qPrintable(w.key() + ", " + kind)) << w.value().first << QString(kind) + w.value().second;
  }
  void unusableOutput() {
    QFETCH(QStringList, args);
    QFETCH(QString, ext);
    fresh_out();
    const QString kind = ext.left(ext.indexOf('.')), suffix = ext.mid(ext.indexOf('.'));
    QString target;
    QStringList expect;
    if (kind == "folder") {
      target = in("folder" + suffix);
      expect = {target + ": is a folder", "allowed: a file name in a folder"};
    } else if (kind == "long name") {
      target = out(QString(300, 'n') + suffix);
      expect = {": a name of " + QString::number(300 + suffix.size()) + " bytes", "allowed: names up to 255 bytes"};
    } else {
      target = out(QString("abcdefgh/").repeated(460) + "x" + suffix);
      expect = {": a path of " + QString::number(target.toUtf8().size()) + " bytes", "allowed: names up to 255 bytes",
                "the path up to 4063 bytes", "PATH_MAX 4096"};
    }
    const auto before = folder_state(in_);
    mrwb_test::expect_refused(out_dir_, expanded(args, target), expect);
    if (QTest::currentTestFailed()) return;
    QVERIFY(folder_state(in_) == before);
  }

  // Two outputs, the second refused: neither is written, and a file the first would have replaced is kept.
  void allOrNothing() {
    fresh_out();
    mrwb_test::expect_refused(out_dir_, expanded({"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/a.h5",
                                                  "--truth", "OUT/no/t.png"}),
                              {"no/t.png: ", "output folder", "does not exist"});
    if (QTest::currentTestFailed()) return;
    mrwb_test::expect_refused(out_dir_, expanded({"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/a.h5",
                                                  "--truth", "OUT/t.png", "--truth", "OUT/./t.png"}),
                              {"/./t.png: named twice as an output", "allowed: every output a file of its own"});
  }

  // A full disk (a 64 KiB tmpfs, 8 KiB free): the write fails after the work, and leaves nothing of the run. The .h5 case died
  // of SIGSEGV at exit (HDF5 closing a file its failed close had left open).
  void fullDisk_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("failing");
    QTest::newRow("recon .h5") << QStringList{"recon", "--in", "IN/s.h5", "--out", "FULL/a.h5"} << "FULL/a.h5";
    QTest::newRow("recon .cfl") << QStringList{"recon", "--in", "IN/s.h5", "--out", "FULL/a.cfl"} << "FULL/a.cfl";
    QTest::newRow("recon .nii") << QStringList{"recon", "--in", "IN/s.h5", "--out", "FULL/a.nii"} << "FULL/a.nii";
    QTest::newRow("simulate .h5") << QStringList{"simulate", "--scenario", "IN/scenario.json", "--out", "FULL/raw.h5"}
                                  << "FULL/raw.h5";
    // The raw data fit elsewhere, the truth does not: the raw data are not left either (and a file they would have
    // replaced is kept, below).
    QTest::newRow("simulate, --truth on the full disk")
        << QStringList{"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/raw.h5", "--truth", "FULL/t.cfl"}
        << "FULL/t.cfl";
  }
  void fullDisk() {
    QFETCH(QStringList, args);
    QFETCH(QString, failing);
    if (!mounted_) QSKIP("no tmpfs of 64 KiB could be mounted (not root)");
    fresh_out();
    const QStringList a = expanded(args + QStringList{"--quiet"});
    QProcess p;
    p.start(MRWB_CLI_PATH, a);
    QVERIFY(p.waitForFinished(120000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable("crashed: " + a.join(' ') + "\n" + err));
    QVERIFY2(p.exitCode() == 2, qPrintable(QString("exit %1: ").arg(p.exitCode()) + err));
    QVERIFY2(!err.trimmed().isEmpty() && !err.trimmed().contains('\n'), qPrintable("not one line: " + err));
    QVERIFY2(err.contains(expanded({failing}).front() + ": cannot write (No space left on device"), qPrintable(err));
    QVERIFY2(names(full_) == QStringList{"filler"}, qPrintable("left on the full disk: " + names(full_).join(' ')));
    QVERIFY2(names(out_dir_).isEmpty(), qPrintable("left: " + names(out_dir_).join(' ')));
  }
  void fullDiskKeepsWhatItWouldReplace() {
    if (!mounted_) QSKIP("no tmpfs of 64 KiB could be mounted (not root)");
    fresh_out();
    QVERIFY(mrwb::test::write_file(out("raw.h5"), "the raw data of an earlier run"));
    const auto before = folder_state(out_dir_);
    const Run r = mrwb(expanded({"simulate", "--scenario", "IN/scenario.json", "--out", "OUT/raw.h5", "--truth",
                                 "FULL/t.cfl", "--quiet"}));
    QVERIFY2(r.code == 2 && r.err.contains("t.cfl: cannot write"), qPrintable(r.err));
    QVERIFY2(folder_state(out_dir_) == before, "the earlier raw.h5 was replaced or a temporary left");
    QCOMPARE(names(full_), QStringList{"filler"});
  }

  // OutputTransaction in process: a rename failing part-way (the second target became a folder after its output
  // was checked) puts back the first target it had replaced and removes every temporary.
  void commitFailingPartWayPutsBack() {
    fresh_out();
    const std::string a = out("a.txt").toStdString(), b = out("b.txt").toStdString();
    QVERIFY(mrwb::test::write_file(out("a.txt"), "old"));
    bool refused = false;
    {
      mrwb::OutputTransaction t;
      for (const std::string& target : {a, b}) {
        mrwb::AtomicOutput o(target);
        o.write_bytes("new", 3);
        o.commit();
      }
      QVERIFY(QDir().mkpath(out("b.txt")));
      try {
        t.commit();
      } catch (const mrwb::InputError& e) {
        refused = QString(e.what()).contains("b.txt: cannot write (Is a directory");
      }
    }
    QVERIFY(refused);
    QCOMPARE(QByteArray::fromStdString(mrwb::test::read_file(a)), QByteArray("old"));
    QCOMPARE(names(out_dir_), (QStringList{"a.txt", "b.txt"}));
    QVERIFY(QFileInfo(out("b.txt")).isDir());
  }
  // Not committed (an exception, a cancel): no output of the run and no temporary; committed: all of them.
  void transactionAllOrNothing() {
    fresh_out();
    auto run = [&](bool commit) {
      mrwb::OutputTransaction t;
      for (const char* name : {"one.bin", "two.bin"}) {
        mrwb::AtomicOutput o(out(name).toStdString());
        o.write_bytes(name, 3);
        o.commit();
      }
      QVERIFY2(names(out_dir_).size() == 2 && !QFileInfo::exists(out("one.bin")), "two hidden temporaries, no output yet");
      if (commit) t.commit();
    };
    run(false);
    QVERIFY2(names(out_dir_).isEmpty(), qPrintable("left: " + names(out_dir_).join(' ')));
    run(true);
    QCOMPARE(names(out_dir_), (QStringList{"one.bin", "two.bin"}));
    QCOMPARE(QByteArray::fromStdString(mrwb::test::read_file(out("two.bin").toStdString())), QByteArray("two"));
  }
};

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "test_cli_outputs.moc"
