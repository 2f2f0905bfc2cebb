#pragma once
// Teaching > one entry per shipped scenario: phantoms/teaching_*.json first, then every other
// phantoms/*.json whose "description" is set. The list is read at runtime, so new files appear without a
// rebuild. Each entry shows its description (status tip, tool tip) and loads the scenario in one click.
#include <QList>
#include <QObject>
#include <QString>

class QMenu;

namespace mrwb::ui {

struct TeachingEntry {
  QString path;         // absolute path of the scenario file
  QString title;        // scenario name (file name when the name is empty)
  QString description;  // the scenario's "description"
  QString error;        // non-empty: core refused the file (entry shown disabled with this text)
};

class TeachingMenu : public QObject {
  Q_OBJECT
 public:
  explicit TeachingMenu(QMenu* menu, QObject* parent = nullptr);

  // The phantoms/ directory: $MRWB_PHANTOMS_DIR, else the installed copy beside the executable
  // (../share/mrwb/phantoms, cmake/Install.cmake), else the source tree's (compile definition
  // MRWB_PHANTOMS_DIR), else ../../phantoms or ../phantoms beside the executable; "" if none exists.
  static QString phantomsDir();
  // Teaching entries of `dir`, teaching_* first, then by file name. Files core cannot read are kept
  // with their error; files without a description are skipped unless named teaching_*.
  static QList<TeachingEntry> scan(const QString& dir);

  // Re-reads the directory into the menu (called each time the menu opens).
  void refresh();
  const QList<TeachingEntry>& entries() const { return entries_; }

 signals:
  void entryChosen(const mrwb::ui::TeachingEntry& entry);

 private:
  QMenu* menu_;
  QList<TeachingEntry> entries_;
};

}  // namespace mrwb::ui
