#pragma once
// The document behind the window: the Scenario being edited, its file, the dirty flag and the undo
// history. Every parameter edit is one undo step (consecutive edits of the same field merge into one);
// loading, New and presets start a fresh history. Files are read and written by core (scenario JSON).
#include <QObject>
#include <QString>

#include "mrwb/scenario/scenario.hpp"

class QUndoStack;

namespace mrwb::ui {

class ScenarioDocument : public QObject {
  Q_OBJECT
 public:
  explicit ScenarioDocument(QObject* parent = nullptr);
  // The undo stack empties itself when destroyed; that must not read as "saved" (autosave would go).
  ~ScenarioDocument() override;

  const mrwb::Scenario& scenario() const { return scenario_; }
  // Absolute path of the scenario file; empty for a new, preset or teaching scenario (Save asks).
  QString path() const { return path_; }
  // Unsaved edits (or a restored autosave) exist.
  bool isDirty() const;
  QUndoStack* undoStack() const { return undo_; }

  // One undoable edit. `field` is the scenario key path ("sequence.TE_s"); the edit merges with the
  // previous one when that changed the same field. No-op when `edited` equals the current scenario.
  void edit(const mrwb::Scenario& edited, const QString& field);
  // Starts over with `s` (clean, empty history), e.g. File > New, a preset or a teaching scenario.
  void reset(const mrwb::Scenario& s, const QString& path = {});
  // Reads through core; throws mrwb::InputError (one line naming file and field) and keeps the
  // current document on failure.
  void load(const QString& path);
  // Writes atomically through core; on success the path is remembered and the document is clean.
  // Throws on failure (the document stays dirty).
  void save(const QString& path);
  // Marks the document modified without an undo step (a recovered autosave differs from its file).
  void markDirty();

  // Scenario JSON as core writes it: the canonical text that equal scenarios share.
  static QString jsonText(const mrwb::Scenario& s);

 signals:
  // After every change of the scenario: edit, undo, redo, reset, load.
  void scenarioChanged(const mrwb::Scenario& s);
  void dirtyChanged(bool dirty);
  void pathChanged(const QString& path);

 private:
  friend class ScenarioEditCommand;
  void apply(const mrwb::Scenario& s);
  void setPath(const QString& path);
  void emitDirtyIfChanged();

  mrwb::Scenario scenario_;
  QString path_;
  QUndoStack* undo_ = nullptr;
  bool forcedDirty_ = false;
  bool lastDirty_ = false;
};

}  // namespace mrwb::ui
