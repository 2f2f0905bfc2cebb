#include "mrwb_ui/teaching_menu.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <algorithm>

#include "mrwb/scenario/scenario.hpp"

namespace mrwb::ui {

namespace {

bool isTeachingFile(const QString& fileName) { return fileName.startsWith(QStringLiteral("teaching_")); }

}  // namespace

TeachingMenu::TeachingMenu(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
  menu_->setToolTipsVisible(true);
  connect(menu_, &QMenu::aboutToShow, this, &TeachingMenu::refresh);
  refresh();
}

QString TeachingMenu::phantomsDir() {
  const QString env = qEnvironmentVariable("MRWB_PHANTOMS_DIR");
  if (!env.isEmpty() && QFileInfo(env).isDir()) return QFileInfo(env).absoluteFilePath();
  const QDir app(QCoreApplication::applicationDirPath());
#if defined(MRWB_INSTALLED_PHANTOMS_DIR)
  const QString installed = QDir::cleanPath(app.absoluteFilePath(QStringLiteral(MRWB_INSTALLED_PHANTOMS_DIR)));
  if (QFileInfo(installed).isDir()) return installed;
#endif
#if defined(MRWB_PHANTOMS_DIR)
  if (QFileInfo(QStringLiteral(MRWB_PHANTOMS_DIR)).isDir()) return QStringLiteral(MRWB_PHANTOMS_DIR);
#endif
  for (const QString& rel : {QStringLiteral("../../phantoms"), QStringLiteral("../phantoms")}) {
    const QString candidate = app.absoluteFilePath(rel);
    if (QFileInfo(candidate).isDir()) return QDir::cleanPath(candidate);
  }
  return {};
}

QList<TeachingEntry> TeachingMenu::scan(const QString& dir) {
  QList<TeachingEntry> out;
  if (dir.isEmpty()) return out;
  const QFileInfoList files = QDir(dir).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  for (const QFileInfo& f : files) {
    TeachingEntry e;
    e.path = f.absoluteFilePath();
    e.title = f.completeBaseName();
    try {
      const mrwb::Scenario s = mrwb::load_scenario(e.path.toStdString());
      if (!s.name.empty()) e.title = QString::fromStdString(s.name);
      e.description = QString::fromStdString(s.description);
    } catch (const std::exception& ex) {
      e.error = QString::fromUtf8(ex.what());
    }
    const bool teaching = isTeachingFile(f.fileName());
    if (!teaching && (e.description.isEmpty() || !e.error.isEmpty())) continue;
    out << e;
  }
  std::stable_sort(out.begin(), out.end(), [](const TeachingEntry& a, const TeachingEntry& b) {
    return isTeachingFile(QFileInfo(a.path).fileName()) && !isTeachingFile(QFileInfo(b.path).fileName());
  });
  return out;
}

void TeachingMenu::refresh() {
  entries_ = scan(phantomsDir());
  menu_->clear();
  if (entries_.isEmpty()) {
    menu_->addAction(tr("(no teaching scenarios found in phantoms/)"))->setEnabled(false);
    return;
  }
  bool teachingSection = true;
  for (const TeachingEntry& e : entries_) {
    if (teachingSection && !isTeachingFile(QFileInfo(e.path).fileName())) {
      teachingSection = false;
      if (!menu_->isEmpty()) menu_->addSeparator();
    }
    QAction* a = menu_->addAction(e.title);
    const QString tip = e.error.isEmpty() ? e.description : tr("Cannot load: %1").arg(e.error);
    a->setStatusTip(tip);
    a->setToolTip(tip);
    a->setData(e.path);
    a->setEnabled(e.error.isEmpty());
    connect(a, &QAction::triggered, this, [this, e] { emit entryChosen(e); });
  }
}

}  // namespace mrwb::ui
