#pragma once
// Autosave and recovery. While the document is dirty, its scenario is written every interval to
// <AppDataLocation>/autosave/<key>.json (key: a hash of the document's path, or "untitled"), through
// core and atomically. A clean save or an explicit Discard removes it. At start, an autosave newer than
// its file (or of an untitled document) is offered for recovery; hasRecovery / recover let scripts and
// tests do that without dialogs. An invalid scenario is not autosaved (core refuses to write one); the
// previous autosave stays.
#include <QObject>
#include <QString>
#include <optional>

#include "mrwb/scenario/scenario.hpp"

class QTimer;

namespace mrwb::ui {

class ScenarioDocument;

class Autosave : public QObject {
  Q_OBJECT
 public:
  static constexpr int kDefaultIntervalMs = 60000;

  Autosave(ScenarioDocument* doc, QObject* parent = nullptr);

  void setIntervalMs(int ms);
  int intervalMs() const;

  // Where the autosave of a document with file `documentPath` ("" for untitled) goes.
  static QString autosavePathFor(const QString& documentPath);
  // The autosave to offer for `documentPath`: it exists and is newer than that file (any for untitled).
  static std::optional<QString> recoverableFor(const QString& documentPath);
  // Reads an autosave through core; throws mrwb::InputError on a bad file.
  static mrwb::Scenario read(const QString& autosavePath);

  // Writes the document now if it is dirty; returns the file written, or "" (clean, or write failed).
  QString saveNow();
  // Removes the autosave of the document's current path (and the last one written, e.g. the untitled
  // one of a document since saved under a name).
  void discard();

 signals:
  void autosaved(const QString& path);

 private:
  ScenarioDocument* doc_;
  QTimer* timer_;
  QString lastWritten_;
};

}  // namespace mrwb::ui
