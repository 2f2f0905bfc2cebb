#pragma once
// Pulseq in the workbench: an imported .seq file (core's reader) with its diagram and facts (duration,
// blocks, ADC samples, TE / TR as core's converter derives them), played on the scenario's phantom in a
// worker thread (core: simulate_block_sequence, then FFT of the first segment); and the export of the
// scenario's sequence (core's builders and writer). Errors show in the panel, never as a crash.
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "mrwb/base/progress.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/simulation/block_simulation.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb_ui/background_job.hpp"

class QLabel;
class QProgressBar;
class QPushButton;

namespace mrwb::ui {

class ImageView;
class SequenceDiagramView;

class PulseqPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PulseqPanel(QWidget* parent = nullptr);
  ~PulseqPanel() override;  // cancels a running simulation and waits for it

  // Reads `path`; on failure the panel shows core's one-line error and keeps the previous sequence.
  bool importFile(const QString& path);
  // Writes the scenario's sequence as Pulseq 1.5 (atomically); false with lastError() on failure.
  bool exportScenario(const mrwb::Scenario& scenario, const QString& path);
  // The phantom, coils and backend the imported sequence is played on.
  void setScenario(const mrwb::Scenario& scenario) { scenario_ = scenario; }

  bool hasSequence() const { return sequence_.has_value(); }
  const mrwb::seq::BlockSequence* sequence() const { return sequence_ ? &*sequence_ : nullptr; }
  QString infoText() const;
  QString lastError() const { return lastError_; }
  bool busy() const { return worker_->busy(); }
  SequenceDiagramView* diagramView() const { return diagram_; }
  ImageView* imageView() const { return image_; }
  // ADC segments (SET label) of the last simulation; 0 before any.
  int simulatedSegments() const { return segments_; }

 public slots:
  void simulate();  // no-op while busy or without a sequence
  void cancel();

 signals:
  void simulationFinished(bool ok);

 private:
  void onFinished();
  void setError(const QString& message);

  mrwb::Scenario scenario_;
  std::optional<mrwb::seq::BlockSequence> sequence_;
  QString fileName_, info_, lastError_;
  int segments_ = 0;

  BackgroundJob* worker_;
  struct Job;
  std::shared_ptr<Job> job_;

  QLabel* infoLabel_;
  QLabel* status_;
  QPushButton* simulateButton_;
  QPushButton* cancelButton_;
  QProgressBar* progress_;
  SequenceDiagramView* diagram_;
  ImageView* image_;
};

}  // namespace mrwb::ui
