#include "mrwb_ui/pulseq_panel.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "mrwb/base/errors.hpp"
#include "mrwb/pipeline/pulseq_simulation.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/pipeline/scenario_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/sequence_diagram_view.hpp"

namespace mrwb::ui {

struct PulseqPanel::Job {
  std::vector<RawData> segments;
  Image2D image;
  std::string backend;
};

PulseqPanel::PulseqPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  infoLabel_ = new QLabel(tr("No Pulseq file imported: File › Import Pulseq…"), this);
  infoLabel_->setObjectName(QStringLiteral("pulseqInfo"));
  infoLabel_->setWordWrap(true);
  infoLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  infoLabel_->setMinimumWidth(100);  // wraps rather than widening the dock
  layout->addWidget(infoLabel_);
  auto* bar = new QHBoxLayout;
  simulateButton_ = new QPushButton(tr("Simulate"), this);
  simulateButton_->setToolTip(tr("Plays the imported sequence on the scenario's phantom and coils with its backend, "
                                 "then shows the FFT of the first segment"));
  simulateButton_->setEnabled(false);
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  progress_ = new QProgressBar(this);
  progress_->setTextVisible(false);
  worker_ = new BackgroundJob(this);
  worker_->driveProgressBar(progress_);
  worker_->attachControls(simulateButton_, cancelButton_);
  connect(worker_, &BackgroundJob::finished, this, &PulseqPanel::onFinished);
  bar->addWidget(simulateButton_);
  bar->addWidget(cancelButton_);
  bar->addStretch(1);
  layout->addLayout(bar);
  layout->addWidget(progress_);  // a row of its own: the dock column is narrow
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("pulseqStatus"));
  status_->setWordWrap(true);
  layout->addWidget(status_);
  auto* split = new QSplitter(Qt::Vertical, this);
  diagram_ = new SequenceDiagramView(split);
  diagram_->setMinimumSize(200, 200);
  image_ = new ImageView(tr("Imported: |FFT|, segment 1"), split);
  image_->clearImage(tr("Simulate the imported sequence to see its image"));
  split->addWidget(diagram_);
  split->addWidget(image_);
  layout->addWidget(split, 1);
  connect(simulateButton_, &QPushButton::clicked, this, &PulseqPanel::simulate);
}

PulseqPanel::~PulseqPanel() = default;  // worker_ (a child) cancels and waits

void PulseqPanel::setError(const QString& message) {
  lastError_ = message;
  status_->setText(message);
  status_->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("color: #e06c60;"));
}

bool PulseqPanel::importFile(const QString& path) {
  if (busy()) return false;
  seq::BlockSequence s;
  QString timing;
  double tr_s = 0;
  try {
    s = seq::read_pulseq(path.toStdString());
    try {
      const seq::ProgramConversion c = seq::to_sequence_program(s);
      tr_s = c.TR_s;
      timing = tr("TE %1 ms, TR %2 ms").arg(c.TE_s * 1e3, 0, 'f', 2).arg(c.TR_s * 1e3, 0, 'f', 2);
    } catch (const std::exception& e) {  // readable but not playable: still show it
      timing = tr("TE / TR not derived: %1").arg(QString::fromStdString(e.what()));
    }
  } catch (const std::exception& e) {
    setError(tr("Import failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  fileName_ = QFileInfo(path).fileName();
  info_ = tr("%1 · %2 · %3 blocks · %4 ms · %5 ADC samples · %6")
              .arg(fileName_, s.name.empty() ? tr("(no name)") : QString::fromStdString(s.name))
              .arg(s.blocks.size())
              .arg(s.duration_s() * 1e3, 0, 'f', 1)
              .arg(s.adc_samples())
              .arg(timing);
  for (const auto& w : s.warnings) info_ += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
  infoLabel_->setText(info_);
  // The first 2 TR (or the whole file when shorter) keep the lobes readable.
  diagram_->setSequence(s, 0, tr_s > 0 ? std::min(s.duration_s(), 2 * tr_s) : s.duration_s());
  sequence_ = std::move(s);
  segments_ = 0;
  image_->clearImage(tr("Simulate the imported sequence to see its image"));
  simulateButton_->setEnabled(true);
  setError({});
  status_->setText(tr("Imported %1").arg(fileName_));
  return true;
}

QString PulseqPanel::infoText() const { return info_; }

bool PulseqPanel::exportScenario(const mrwb::Scenario& scenario, const QString& path) {
  try {
    const seq::BuiltSequence b = seq::scenario_blocks(scenario.sequence, "scenario: sequence");
    seq::write_pulseq(b.seq, path.toStdString());
  } catch (const std::exception& e) {
    setError(tr("Export failed: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  setError({});
  status_->setText(tr("Exported the scenario's %1 sequence to %2")
                       .arg(QString::fromStdString(name_of(scenario.sequence.type)), QFileInfo(path).fileName()));
  return true;
}

void PulseqPanel::simulate() {
  if (worker_->busy() || !sequence_) return;
  setError({});
  auto job = std::make_shared<Job>();
  job_ = job;
  const Scenario sc = scenario_;
  worker_->start(
      [job, sc, s = *sequence_](const ProgressFn& progress, const CancelToken& cancel) {
        auto engine = make_scenario_engine(sc);
        ImportedSequenceRun run = simulate_imported_sequence(sc, s, *engine, progress, cancel);
        job->backend = run.backend;
        job->segments = std::move(run.segments);
        job->image = std::move(run.image);
      },
      QStringLiteral("mrwb-pulseq"));
  progress_->setValue(0);
  status_->setText(tr("Simulating %1 on “%2” (backend %3, model %4)…")
                       .arg(fileName_, QString::fromStdString(sc.name), QString::fromStdString(name_of(sc.backend)),
                            QString::fromStdString(simulation_model_text(sc.simulation))));
}

void PulseqPanel::cancel() {
  worker_->cancel();
}

void PulseqPanel::onFinished() {
  const Job& job = *job_;
  if (worker_->outcome() == BackgroundJob::Outcome::Cancelled) {
    status_->setText(tr("Cancelled"));
    emit simulationFinished(false);
    return;
  }
  if (worker_->outcome() == BackgroundJob::Outcome::Failed) {
    setError(tr("Simulation failed: %1").arg(worker_->error()));
    emit simulationFinished(false);
    return;
  }
  segments_ = static_cast<int>(job.segments.size());
  progress_->setValue(1000);
  image_->setImage(job.image.magnitude(), job.image.nx, job.image.ny, false,
                   tr("%1: |FFT| of segment 1 of %2").arg(fileName_).arg(segments_));
  status_->setText(tr("Simulated %1 on %2: %3 segment(s), %4 × %5")
                       .arg(fileName_, QString::fromStdString(job.backend))
                       .arg(segments_)
                       .arg(job.image.nx)
                       .arg(job.image.ny));
  emit simulationFinished(true);
}

}  // namespace mrwb::ui
