// Block-sequence builders: gradient moments at the echo, VENC first moment, balanced moments, limits,
// minimum TE / TR and bad input. Moments are integrated here from the gradient corner points.
#include <QtTest>

#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb/sequence_blocks.hpp"

using namespace mrwb;
using namespace mrwb::seq;

namespace {
// Zeroth and first moment of one axis over [ta, tb] (absolute times), first moment about ta.
struct Moments {
  double m0 = 0, m1 = 0;
};
Moments moments(const BlockSequence& s, int axis, double ta, double tb) {
  Moments m;
  double t0 = 0;
  for (const Block& b : s.blocks) {
    const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
    if (*g3[axis]) {
      const auto p = (*g3[axis])->points(s.sys.grad_raster_s);
      for (std::size_t i = 1; i < p.size(); ++i) {
        // Exact for a linear segment: sub-sample finely (Simpson on each piece).
        const double a = std::max(ta, t0 + p[i - 1].first), c = std::min(tb, t0 + p[i].first);
        if (c <= a) continue;
        const double dt = p[i].first - p[i - 1].first;
        auto G = [&](double t) { return p[i - 1].second + (p[i].second - p[i - 1].second) * (t - t0 - p[i - 1].first) / dt; };
        const double mid = 0.5 * (a + c);
        m.m0 += (c - a) / 6 * (G(a) + 4 * G(mid) + G(c));
        m.m1 += (c - a) / 6 * (G(a) * (a - ta) + 4 * G(mid) * (mid - ta) + G(c) * (c - ta));
      }
    }
    t0 += b.duration_s;
  }
  return m;
}
// Absolute times of the excitation centres and the ADC sample n/2 of each readout.
struct Echo {
  double t_exc, t_echo;
  int line, set;
};
std::vector<Echo> echoes(const BlockSequence& s) {
  std::vector<Echo> out;
  double t0 = 0, exc = -1;
  for (const Block& b : s.blocks) {
    if (b.rf && b.rf->use == 'e') exc = t0 + b.rf->delay_s + b.rf->center_s;
    if (b.adc) {
      Echo e{exc, t0 + b.adc->sample_time_s(b.adc->num_samples / 2), -1, 0};
      for (const Label& l : b.labels) {
        if (l.name == "LIN") e.line = l.value;
        if (l.name == "SET") e.set = l.value;
      }
      out.push_back(e);
    }
    t0 += b.duration_s;
  }
  return out;
}
}  // namespace

class TestSequence : public QObject {
  Q_OBJECT
 private slots:
  void greZeroMomentAtEcho() {
    CartesianParams p;
    p.matrix = 32;
    p.TE_s = 5e-3;
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    const double dk = 1 / p.fov_m;
    QVERIFY(std::abs(b.TE_s - 5e-3) <= 5e-6);
    for (const Echo& e : echoes(b.seq)) {
      const Moments mx = moments(b.seq, 0, e.t_exc, e.t_echo);
      const Moments my = moments(b.seq, 1, e.t_exc, e.t_echo);
      const Moments mz = moments(b.seq, 2, e.t_exc, e.t_echo);
      QVERIFY2(std::abs(mx.m0) < 1e-6 * dk, qPrintable(QString::number(mx.m0 / dk)));
      QVERIFY(std::abs(my.m0 - (e.line - p.matrix / 2) * dk) < 1e-6 * dk);
      QVERIFY2(std::abs(mz.m0) < 1e-3 / p.slice_thickness_m, qPrintable(QString::number(mz.m0)));
      QVERIFY(std::abs((e.t_echo - e.t_exc) - b.TE_s) < 1e-9);
    }
    // The converter puts the same sample at k = 0.
    const ProgramConversion c = to_sequence_program(b.seq, {20e-6});
    QCOMPARE(c.k0_sample, p.matrix / 2);
    QVERIFY(std::abs(c.TE_s - b.TE_s) < 1e-9);
    QVERIFY(std::abs(c.TR_s - b.TR_s) < 1e-9);
  }
  void spinEchoRefocusesAtEcho() {
    CartesianParams p;
    p.matrix = 32;
    const BuiltSequence b = build_spin_echo_blocks(p);
    const ProgramConversion c = to_sequence_program(b.seq, {20e-6});
    QCOMPARE(c.k0_sample, p.matrix / 2);
    const std::size_t centre = static_cast<std::size_t>(c.k0_adc) * p.matrix + c.k0_sample;
    QVERIFY(std::abs(c.kx[centre]) < 1e-6 * p.fov_m);
    QVERIFY(std::abs(c.ky[centre]) < 1e-6 * p.fov_m);
    QVERIFY2(std::abs(c.TE_s - b.TE_s) <= 10e-6, qPrintable(QString("%1 vs %2").arg(c.TE_s).arg(b.TE_s)));
  }
  void phaseContrastVencPhase_data() {
    QTest::addColumn<double>("venc");
    QTest::addColumn<int>("axes");
    QTest::newRow("1 m/s x") << 1.0 << 1;
    QTest::newRow("0.3 m/s xyz") << 0.3 << 3;
    QTest::newRow("2 m/s xy") << 2.0 << 2;
  }
  void phaseContrastVencPhase() {
    QFETCH(double, venc);
    QFETCH(int, axes);
    CartesianParams p;
    p.matrix = 16;
    p.venc_m_per_s = venc;
    p.venc_axes.clear();
    for (int a = 0; a < axes; ++a) p.venc_axes.push_back(a);
    const BuiltSequence b = build_phase_contrast_blocks(p);
    const auto e = echoes(b.seq);
    // Segments of the centre line: reference (set 0) and one per axis.
    std::vector<Echo> seg(axes + 1, Echo{-1, -1, -1, -1});
    for (const Echo& x : e)
      if (x.line == p.matrix / 2) seg[x.set] = x;
    for (int d = 1; d <= axes; ++d)
      for (int a = 0; a < 3; ++a) {
        const double m1_ref = moments(b.seq, a, seg[0].t_exc, seg[0].t_echo).m1;
        const double m1_d = moments(b.seq, a, seg[d].t_exc, seg[d].t_echo).m1;
        const double dphi = 2 * M_PI * venc * (m1_d - m1_ref);  // phase step of a spin moving at VENC
        if (a == d - 1)
          QVERIFY2(std::abs(std::abs(dphi) - M_PI) < 0.01 * M_PI, qPrintable(QString("axis %1: %2 rad").arg(a).arg(dphi)));
        else
          QVERIFY2(std::abs(dphi) < 1e-6, qPrintable(QString("axis %1 leaks %2 rad").arg(a).arg(dphi)));
      }
    // The bipolar adds no zeroth moment: k = 0 still at sample n/2.
    for (const Echo& x : e) QVERIFY(std::abs(moments(b.seq, 0, x.t_exc, x.t_echo).m0) < 1e-6 * p.fov_m);
  }
  void bssfpIsBalanced() {
    CartesianParams p;
    p.matrix = 16;
    p.flip_angle_deg = 40;
    const BuiltSequence b = build_bssfp_blocks(p);
    std::vector<double> exc;
    double t0 = 0;
    for (const Block& bl : b.seq.blocks) {
      if (bl.rf) exc.push_back(t0 + bl.rf->delay_s + bl.rf->center_s);
      t0 += bl.duration_s;
    }
    QVERIFY(exc.size() > 3);
    for (std::size_t i = 1; i + 1 < exc.size(); ++i)
      for (int a = 0; a < 3; ++a) {
        const double m0 = moments(b.seq, a, exc[i], exc[i + 1]).m0;
        QVERIFY2(std::abs(m0) < 1e-6 / p.slice_thickness_m * 1e3, qPrintable(QString("TR %1 axis %2: %3").arg(i).arg(a).arg(m0)));
      }
  }
  void limitsRespected_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<double>("slew_T_m_s");
    QTest::addColumn<double>("grad_mT_m");
    for (const char* t : {"spoiled_gre", "spin_echo", "bssfp", "phase_contrast"}) {
      QTest::newRow((std::string(t) + " fast").c_str()) << QString(t) << 200.0 << 40.0;
      QTest::newRow((std::string(t) + " slow").c_str()) << QString(t) << 40.0 << 20.0;
    }
  }
  void limitsRespected() {
    QFETCH(QString, type);
    QFETCH(double, slew_T_m_s);
    QFETCH(double, grad_mT_m);
    CartesianParams p;
    p.matrix = 32;
    p.sys.max_slew_Hz_per_m_per_s = slew_T_m_s * gamma_Hz_per_T;
    p.sys.max_grad_Hz_per_m = grad_mT_m * 1e-3 * gamma_Hz_per_T;
    const BuiltSequence b = build_blocks(type.toStdString(), p);
    double max_g = 0, max_s = 0;
    for (const Block& bl : b.seq.blocks)
      for (const auto* g : {&bl.gx, &bl.gy, &bl.gz}) {
        if (!*g) continue;
        const auto pts = (*g)->points(p.sys.grad_raster_s);
        for (std::size_t i = 0; i < pts.size(); ++i) {
          max_g = std::max(max_g, std::abs(pts[i].second));
          if (i && pts[i].first > pts[i - 1].first)
            max_s = std::max(max_s, std::abs(pts[i].second - pts[i - 1].second) / (pts[i].first - pts[i - 1].first));
        }
      }
    QVERIFY(max_g <= p.sys.max_grad_Hz_per_m * (1 + 1e-9));
    QVERIFY(max_s <= p.sys.max_slew_Hz_per_m_per_s * (1 + 1e-9));
    QVERIFY(max_s > 0.3 * p.sys.max_slew_Hz_per_m_per_s);  // the design uses the slew it is given
    // Slower hardware gives a longer minimum TE.
    if (slew_T_m_s < 100) {
      CartesianParams fast = p;
      fast.sys = SystemLimits{};
      QVERIFY(build_blocks(type.toStdString(), fast).min_TE_s < b.min_TE_s);
    }
  }
  void slewBeyondLimitIsRejected() {
    BlockSequence s;
    Block b;
    b.duration_s = 1e-3;
    Gradient g;
    g.amplitude_Hz_per_m = 20e-3 * gamma_Hz_per_T;
    g.rise_s = g.fall_s = 10e-6;  // 2000 T/m/s
    g.flat_s = 500e-6;
    b.gx = g;
    s.blocks.push_back(b);
    try {
      check_limits(s, "x.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("slew") && QString(e.what()).contains("allowed"), e.what());
    }
  }
  void badParametersGiveTheRange_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expect");
    QTest::newRow("TE below minimum") << "te" << "minimum";
    QTest::newRow("TR below minimum") << "tr" << "TR_s";
    QTest::newRow("ACS larger than the matrix") << "acs" << "acs_lines";
    QTest::newRow("bandwidth needing too much gradient") << "bw" << "mT/m";
    QTest::newRow("VENC axes") << "venc" << "venc_axes";
  }
  void badParametersGiveTheRange() {
    QFETCH(QString, what);
    QFETCH(QString, expect);
    CartesianParams p;
    p.matrix = 32;
    std::string type = "spoiled_gre";
    if (what == "te") p.TE_s = 0.5e-3;
    if (what == "tr") p.TR_s = 1e-3;
    if (what == "acs") p.acs_lines = 40;
    if (what == "bw") {
      p.bandwidth_Hz_per_pixel = 5000;
      p.fov_m = 0.02;
    }
    if (what == "venc") {
      type = "phase_contrast";
      p.venc_axes = {0, 0};
    }
    try {
      build_blocks(type, p, "s.json: sequence");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expect) && QString(e.what()).contains("allowed"), e.what());
    }
  }
  void diagramHasAllChannels() {
    CartesianParams p;
    p.matrix = 16;
    const BuiltSequence b = build_spoiled_gre_blocks(p);
    const SequenceDiagram d = sequence_diagram(b.seq, 0, b.TR_s);
    QCOMPARE(d.traces.size(), std::size_t(5));
    for (const auto& t : d.traces) QVERIFY2(!t.t_s.empty(), t.name.c_str());
    double peak_rf = 0;
    for (double v : d.traces[0].value) peak_rf = std::max(peak_rf, v);
    QVERIFY(peak_rf > 0.1 && peak_rf < 50);  // uT for a 15° 1 ms sinc
  }
};

QTEST_GUILESS_MAIN(TestSequence)
#include "test_sequence.moc"
