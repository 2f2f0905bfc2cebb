#pragma once
// File > Open Recent: the last scenario files opened or saved, newest first, kept in QSettings
// (key "recentFiles"). Files that no longer exist are pruned whenever the list is read.
#include <QStringList>

namespace mrwb::ui {

class RecentFiles {
 public:
  static constexpr int kMaxEntries = 8;

  // Newest first, at most kMaxEntries, only files that exist (the stored list is pruned too).
  static QStringList list();
  // Moves `path` (made absolute) to the front.
  static void add(const QString& path);
  static void clear();
};

}  // namespace mrwb::ui
