#pragma once
// The scenario editor: groups for phantom, flow, simulation model, sequence, coils and reconstruction, one
// form row per Scenario parameter (shown in mm / ms / mL/s, stored in SI). It edits a copy of the scenario and hands
// every change back with the field's key (scenarioEdited); the document owns the scenario and core
// validates. A validation message from core is shown under the field it names.
#include <QHash>
#include <QWidget>
#include <functional>
#include <string>

#include "mrwb/scenario/scenario.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace mrwb::ui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  // Shows `s` in the form without emitting scenarioEdited.
  void setScenario(const mrwb::Scenario& s);
  const mrwb::Scenario& scenario() const { return scenario_; }

  // Empty message: valid. Otherwise core's InputError text: shown under the field it names (the
  // earliest scenario key in the text), or under the form when it names none of this panel's fields.
  void setValidationMessage(const QString& message);

  // The editor of a scenario key ("sequence.TE_s"), or nullptr; the keys this panel edits.
  QWidget* fieldWidget(const QString& key) const { return fields_.value(key); }
  QStringList fieldKeys() const { return fields_.keys(); }
  // The message shown at a field ("" when none); the message shown under the form.
  QString fieldMessage(const QString& key) const;
  QString generalMessage() const;
  // The scenario key named first in a validation message, among `keys`; "" if none.
  static QString fieldInMessage(const QString& message, const QStringList& keys);

 signals:
  void scenarioEdited(const mrwb::Scenario& s, const QString& field);
  void presetRequested(const QString& name);

 private:
  // Each adds a row for scenario key `key`; `set` writes the shown value (in display units) into the
  // scenario.
  QDoubleSpinBox* addDouble(QFormLayout* form, const QString& key, const QString& label, double min, double max,
                            int decimals, double step, const QString& suffix, const QString& tip,
                            std::function<void(Scenario&, double)> set);
  QSpinBox* addInt(QFormLayout* form, const QString& key, const QString& label, int min, int max, int step,
                   const QString& tip, std::function<void(Scenario&, int)> set);
  // items: (shown text, stored value).
  QComboBox* addCombo(QFormLayout* form, const QString& key, const QString& label,
                      const QList<QPair<QString, QString>>& items, const QString& tip,
                      std::function<void(Scenario&, const std::string&)> set);
  // Puts `editor` with its (hidden) message label in the form and files it under `key`.
  void addField(QFormLayout* form, const QString& key, const QString& label, QWidget* editor);
  // Applies `f` to the scenario copy and reports it, unless the form is being filled.
  template <typename F>
  void edit(const QString& field, F&& f);
  static void selectData(QComboBox* combo, const QString& value);
  // The flow parameters are editable only while flow is on.
  void setFlowEditorsEnabled(bool on);

  mrwb::Scenario scenario_;
  bool filling_ = false;
  QHash<QString, QWidget*> fields_;
  QHash<QString, QLabel*> fieldMessages_;

  QLabel* description_ = nullptr;
  QGroupBox* descriptionBox_ = nullptr;
  QComboBox* preset_ = nullptr;
  QLineEdit* name_ = nullptr;
  QComboBox* phantom_ = nullptr;
  QSpinBox* cellsPerVoxel_ = nullptr;
  QDoubleSpinBox* discRadius_ = nullptr;
  QComboBox* backgroundTissue_ = nullptr;
  QComboBox* vesselTissue_ = nullptr;
  QDoubleSpinBox* vesselRadius_ = nullptr;
  QDoubleSpinBox* vesselAngle_ = nullptr;
  QDoubleSpinBox* vesselOffset_ = nullptr;
  QCheckBox* flowEnabled_ = nullptr;
  QComboBox* flowSolver_ = nullptr;
  QDoubleSpinBox* flowInlet_ = nullptr;
  QComboBox* flowWaveform_ = nullptr;
  QDoubleSpinBox* flowPeriod_ = nullptr;
  QDoubleSpinBox* flowPulsatility_ = nullptr;
  QDoubleSpinBox* flowTime_ = nullptr;
  QDoubleSpinBox* flowViscosity_ = nullptr;
  QDoubleSpinBox* flowDensity_ = nullptr;
  QComboBox* model_ = nullptr;
  QComboBox* flowTransport_ = nullptr;
  QSpinBox* spinsPerAxis_ = nullptr;
  QDoubleSpinBox* tr_ = nullptr;
  QDoubleSpinBox* te_ = nullptr;
  QDoubleSpinBox* flip_ = nullptr;
  QDoubleSpinBox* fov_ = nullptr;
  QSpinBox* matrix_ = nullptr;
  QDoubleSpinBox* bandwidth_ = nullptr;
  QSpinBox* dummyScans_ = nullptr;
  QDoubleSpinBox* maxGrad_ = nullptr;
  QDoubleSpinBox* maxSlew_ = nullptr;
  QDoubleSpinBox* partialFourier_ = nullptr;
  QComboBox* sequenceType_ = nullptr;
  QComboBox* rfFidelity_ = nullptr;
  QComboBox* gradientFidelity_ = nullptr;
  QComboBox* spoilingFidelity_ = nullptr;
  QSpinBox* coils_ = nullptr;
  QComboBox* coilArrangement_ = nullptr;
  QSpinBox* acceleration_ = nullptr;
  QSpinBox* acsLines_ = nullptr;
  QComboBox* reconMethod_ = nullptr;
  QSpinBox* kernelPe_ = nullptr;
  QSpinBox* kernelRo_ = nullptr;
  QDoubleSpinBox* lambda_ = nullptr;
  QComboBox* approach_ = nullptr;
  QDoubleSpinBox* eta_ = nullptr;
  QDoubleSpinBox* clip_ = nullptr;
  QSpinBox* cgIterations_ = nullptr;
  QDoubleSpinBox* cgLambda_ = nullptr;
  QComboBox* undersampling_ = nullptr;
  QSpinBox* undersamplingSeed_ = nullptr;
  QComboBox* coilMaps_ = nullptr;
  QComboBox* csRegularizer_ = nullptr;
  QDoubleSpinBox* csLambda_ = nullptr;
  QSpinBox* csIterations_ = nullptr;
  QLabel* validation_ = nullptr;
};

}  // namespace mrwb::ui
