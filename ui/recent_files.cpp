#include "mrwb_ui/recent_files.hpp"

#include <QFileInfo>
#include <QSettings>

namespace mrwb::ui {

namespace {

const QString kKey = QStringLiteral("recentFiles");

void store(const QStringList& paths) { QSettings().setValue(kKey, paths); }

}  // namespace

QStringList RecentFiles::list() {
  const QStringList stored = QSettings().value(kKey).toStringList();
  QStringList kept;
  for (const QString& p : stored)
    if (QFileInfo(p).isFile() && !kept.contains(p) && kept.size() < kMaxEntries) kept << p;
  if (kept != stored) store(kept);
  return kept;
}

void RecentFiles::add(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  QStringList paths = list();
  paths.removeAll(abs);
  paths.prepend(abs);
  while (paths.size() > kMaxEntries) paths.removeLast();
  store(paths);
}

void RecentFiles::clear() { store({}); }

}  // namespace mrwb::ui
