#pragma once
// The scenario's pulse sequence as stacked rows RF |B1| [uT], Gx, Gy, Gz [mT/m] and ADC against time
// [ms] (QPainter). Data from core: seq::scenario_blocks and seq::sequence_diagram; the view only draws.
#include <QString>
#include <QWidget>

#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

namespace mrwb::ui {

class SequenceDiagramView : public QWidget {
  Q_OBJECT
 public:
  explicit SequenceDiagramView(QWidget* parent = nullptr);

  // Builds the scenario's sequence and shows `trCount` repetitions from the excitation of the first
  // imaging line (after the dummy scans). A sequence core rejects leaves the view empty with the message (see errorText()).
  void setScenario(const mrwb::Scenario& scenario);
  // Any block sequence (e.g. an imported Pulseq file); window [t_begin, t_end) s, t_end <= t_begin: all.
  void setSequence(const mrwb::seq::BlockSequence& sequence, double t_begin_s = 0, double t_end_s = 0);
  void setTrCount(int trCount);
  int trCount() const { return trCount_; }

  const mrwb::seq::SequenceDiagram& diagram() const { return diagram_; }
  QString errorText() const { return error_; }
  // "TE 4.00 ms (min 2.10 ms), TR 10.00 ms (min 5.30 ms)" for the built scenario sequence.
  QString timingText() const { return timing_; }

  QSize sizeHint() const override { return {720, 480}; }

 signals:
  void diagramChanged();

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  void rebuild();

  mrwb::Scenario scenario_;
  bool hasScenario_ = false;
  int trCount_ = 2;
  mrwb::seq::SequenceDiagram diagram_;
  QString error_, timing_;
};

}  // namespace mrwb::ui
