#include "mrwb_ui/sequence_diagram_view.hpp"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <exception>

#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {

const QColor kTraceColors[5] = {QColor(240, 120, 90), QColor(90, 170, 250), QColor(120, 220, 140), QColor(220, 180, 90),
                                QColor(200, 130, 230)};

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `count` ticks over `span`.
double niceStep(double span, int count) {
  const double raw = span / std::max(1, count);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

}  // namespace

SequenceDiagramView::SequenceDiagramView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(320, 240);
  setAutoFillBackground(false);
}

void SequenceDiagramView::setScenario(const mrwb::Scenario& scenario) {
  scenario_ = scenario;
  hasScenario_ = true;
  rebuild();
}

void SequenceDiagramView::setTrCount(int trCount) {
  trCount_ = std::max(1, trCount);
  if (hasScenario_) rebuild();
}

void SequenceDiagramView::setSequence(const mrwb::seq::BlockSequence& sequence, double t_begin_s, double t_end_s) {
  hasScenario_ = false;
  error_.clear();
  timing_.clear();
  diagram_ = mrwb::seq::sequence_diagram(sequence, t_begin_s, t_end_s);
  update();
  emit diagramChanged();
}

void SequenceDiagramView::rebuild() {
  error_.clear();
  timing_.clear();
  diagram_ = {};
  try {
    // Core builds the scenario's sequence and cuts the window from the first imaging excitation.
    const mrwb::seq::BuiltSequence b = mrwb::seq::scenario_blocks(scenario_.sequence, "sequence");
    diagram_ = mrwb::seq::sequence_diagram(scenario_, trCount_ * b.TR_s);
    timing_ = tr("TE %1 ms (min %2 ms), TR %3 ms (min %4 ms)")
                  .arg(b.TE_s * 1e3, 0, 'f', 2)
                  .arg(b.min_TE_s * 1e3, 0, 'f', 2)
                  .arg(b.TR_s * 1e3, 0, 'f', 2)
                  .arg(b.min_TR_s * 1e3, 0, 'f', 2);
  } catch (const std::exception& e) {
    error_ = QString::fromStdString(e.what());
  }
  update();
  emit diagramChanged();
}

void SequenceDiagramView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), kPlotBackground);
  p.setPen(kPlotText);
  const int left = 96, right = 16, top = 28, bottom = 40;
  p.drawText(QRect(left, 4, width() - left - right, top - 6), Qt::AlignLeft | Qt::AlignVCenter,
             timing_.isEmpty() ? tr("Sequence diagram") : tr("Sequence diagram — %1").arg(timing_));
  if (!error_.isEmpty() || diagram_.traces.empty()) {
    p.drawText(rect().adjusted(12, 0, -12, 0), Qt::AlignCenter | Qt::TextWordWrap,
               error_.isEmpty() ? tr("No sequence") : error_);
    return;
  }
  const double t0 = diagram_.t_begin_s, t1 = diagram_.t_end_s > t0 ? diagram_.t_end_s : t0 + 1e-3;
  const QRectF plot(left, top, width() - left - right, height() - top - bottom);
  const int rows = static_cast<int>(diagram_.traces.size());
  const double rowH = plot.height() / rows;
  auto xOf = [&](double t) { return plot.left() + (t - t0) / (t1 - t0) * plot.width(); };

  for (int r = 0; r < rows; ++r) {
    const mrwb::seq::DiagramTrace& trace = diagram_.traces[r];
    const QRectF row(plot.left(), plot.top() + r * rowH, plot.width(), rowH);
    double vmax = 0;
    for (double v : trace.value) vmax = std::max(vmax, std::abs(v));
    const bool bipolar = std::any_of(trace.value.begin(), trace.value.end(), [](double v) { return v < 0; });
    const double zeroY = bipolar ? row.center().y() : row.bottom() - 4;
    const double halfH = (bipolar ? 0.5 * row.height() : row.height()) - 6;
    auto yOf = [&](double v) { return zeroY - (vmax > 0 ? v / vmax : 0) * halfH; };

    p.setPen(QPen(kPlotAxis, 1, Qt::DotLine));
    p.drawLine(QPointF(row.left(), zeroY), QPointF(row.right(), zeroY));
    p.setPen(kPlotText);
    const QString unit = trace.unit.empty() ? QString() : QStringLiteral(" [%1]").arg(QString::fromStdString(trace.unit));
    p.drawText(QRectF(4, row.top(), left - 10, row.height() / 2), Qt::AlignRight | Qt::AlignBottom,
               QString::fromStdString(trace.name) + unit);
    if (vmax > 0 && !trace.unit.empty())
      p.drawText(QRectF(4, row.top() + row.height() / 2, left - 10, row.height() / 2), Qt::AlignRight | Qt::AlignTop,
                 QStringLiteral("±%1").arg(vmax, 0, 'g', 3));

    QPainterPath path;
    for (std::size_t i = 0; i < trace.t_s.size(); ++i) {
      const QPointF pt(xOf(std::clamp(trace.t_s[i], t0, t1)), yOf(trace.value[i]));
      if (i == 0) path.moveTo(pt);
      else path.lineTo(pt);
    }
    p.setPen(QPen(kTraceColors[r % 5], 1.5));
    if (trace.name == "ADC") p.setBrush(QColor(kTraceColors[4].red(), kTraceColors[4].green(), kTraceColors[4].blue(), 80));
    else p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(kPlotAxis, 1));
    p.drawLine(row.bottomLeft(), row.bottomRight());
  }
  // Time axis in ms.
  p.setPen(QPen(kPlotAxis, 1));
  p.drawLine(plot.topLeft(), plot.bottomLeft());
  const double spanMs = (t1 - t0) * 1e3;
  const double step = niceStep(spanMs, 8);
  p.setPen(kPlotText);
  for (double t = std::ceil(t0 * 1e3 / step) * step; t <= t1 * 1e3 + 1e-9; t += step) {
    const double x = xOf(t * 1e-3);
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    p.drawText(QRectF(x - 40, plot.bottom() + 5, 80, 16), Qt::AlignHCenter | Qt::AlignTop, QString::number(t, 'g', 4));
  }
  p.drawText(QRectF(plot.left(), height() - 18, plot.width(), 16), Qt::AlignHCenter, tr("time [ms]"));
}

}  // namespace mrwb::ui
