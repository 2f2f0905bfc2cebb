// Multi-slice 2-D GRE and 3-D time of flight, simulated and reconstructed: each slice / partition shows its
// own content (energy, centroid and PSNR against the per-slice truth), slices come out in z order (SLC =
// z), kz partitions resolve z structure, GRAPPA works per slice, and the scenario fields round-trip.
#include <QTest>

#include <cmath>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb/simulation/volume_simulation.hpp"

using namespace mrwb;

namespace {

// 32² in-plane, a muscle disc in a slab of 4 mm cells.
Scenario base_scenario(SequenceType type) {
  Scenario s = mrwb::test::uniform_disc_scenario(32);
  s.name = "multislice-test";
  s.sequence.type = type;
  s.sequence.fov_m = 0.128;
  s.sequence.flip_angle_deg = 30;
  s.sequence.dummy_scans = 20;
  return s;
}

// Multi-slice spoiled GRE: 4 slices of 8 mm, 4 mm gap (12 mm apart), 4 loop coils.
Scenario multislice_scenario() {
  Scenario s = base_scenario(SequenceType::SpoiledGre);
  s.sequence.slices = 4;
  s.sequence.slice_thickness_m = 0.008;
  s.sequence.slice_gap_m = 0.004;
  s.sequence.TR_s = 0.05;
  s.sequence.TE_s = 0.006;
  s.phantom.slab_thickness_m = 0.048;  // the four slices' z bands
  s.coils.count = 4;
  return s;
}

// 3-D time of flight: one 44 mm slab in 11 partitions of 4 mm (one cell each; an odd count puts partition
// centres on cell centres: partition i at (i − 5)·4 mm, cell iz at (iz − 5)·4 mm).
Scenario tof3d_scenario() {
  Scenario s = base_scenario(SequenceType::Tof);
  s.sequence.partitions = 11;
  s.sequence.slice_thickness_m = 0.044;
  s.sequence.TR_s = 0.02;
  s.sequence.TE_s = 0.006;
  s.phantom.slab_thickness_m = 0.044;
  return s;
}

// Content that changes along z: the disc keeps only x < x_cut(z) = slope·z + 4 mm, so every slice /
// partition holds a different, larger piece as z grows.
CellPhantom z_varying_phantom(const Scenario& s, double slope) {
  CellPhantom ph = build_phantom(s);
  for (int iz = 0; iz < ph.nz; ++iz)
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix)
        if (ph.x_m(ix) > slope * ph.z_m(iz) + 0.004) ph.PD[(static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix] = 0;
  return ph;
}

struct PlaneStats {
  double energy = 0, centroid_x = 0;
};
PlaneStats stats(const Image2D& img) {
  PlaneStats p;
  const auto m = img.magnitude();
  double w = 0;
  for (int y = 0; y < img.ny; ++y)
    for (int x = 0; x < img.nx; ++x) {
      const double v = m[static_cast<std::size_t>(y) * img.nx + x];
      p.energy += v * v;
      w += v;
      p.centroid_x += v * x;
    }
  p.centroid_x = w > 0 ? p.centroid_x / w : 0;
  return p;
}

double psnr(const Image2D& img, const Image2D& ref) {
  return compare_images(img.magnitude(), ref.magnitude(), img.nx, img.ny).psnr_db;
}

}  // namespace

class TestMultislice : public QObject {
  Q_OBJECT
  VolumeSimulationResult ms_;  // the multi-slice simulation, shared by the FFT and GRAPPA cases

 private slots:
  void initTestCase() {
    const Scenario s = multislice_scenario();
    validate_scenario(s, "test");
    auto engine = make_simulation_engine(Backend::Cpu);
    ms_ = simulate_volume(s, z_varying_phantom(s, 0.625), *engine, {}, {});
    qInfo("multi-slice simulation: %.2f s", ms_.seconds);
  }

  void multisliceImagesShowTheirOwnSliceInZOrder() {
    const RawData& raw = ms_.raw;
    QCOMPARE(raw.slices, 4);
    QCOMPARE(raw.partitions, 1);
    const ImageVolume v = reconstruct_volume(raw, ReconOptions{}, {}, {});
    QCOMPARE(v.nz, 4);
    QCOMPARE(ms_.truth.nz, 4);
    double prev_energy = 0;
    for (int z = 0; z < 4; ++z) {
      const Image2D img = v.slice(z), ref = ms_.truth.slice(z);
      const PlaneStats a = stats(img), t = stats(ref);
      const double p = psnr(img, ref);
      qInfo("slice %d: PSNR %.1f dB, energy %.4g (truth %.4g), centroid x %.2f (truth %.2f)", z, p, a.energy, t.energy,
            a.centroid_x, t.centroid_x);
      QVERIFY2(p > 30, qPrintable(QString("slice %1: PSNR %2 dB (bar 30)").arg(z).arg(p)));
      QVERIFY(std::abs(a.energy / t.energy - 1) < 0.05);
      QVERIFY(std::abs(a.centroid_x - t.centroid_x) < 0.5);
      // SLC = z order: the piece of the disc grows with z, in the truth and in the images.
      QVERIFY2(a.energy > 1.1 * prev_energy, qPrintable(QString("slice %1 not above slice %2").arg(z).arg(z - 1)));
      prev_energy = a.energy;
    }
  }

  void grappaPerSliceAtR2() {
    // R = 2 with 12 integrated ACS lines, cut from the fully sampled multi-coil data.
    RawData r = ms_.raw;
    r.accel_R = 2;
    r.line_flags.assign(r.ny, 0);
    for (int l = 0; l < r.ny; ++l) {
      const bool acq = (l - r.ny / 2) % 2 == 0, acs = std::abs(l - r.ny / 2) < 6 || l - r.ny / 2 == 6;
      if (acq || acs) r.line_flags[l] = kLineAcquired | kLineImaging | (acs ? kLineCalibration : 0);
      else
        for (int c = 0; c < r.ncoils; ++c)
          for (int s = 0; s < r.slices; ++s)
            for (int x = 0; x < r.nx; ++x) r.kspace[r.index(c, s, 0, l, x)] = 0;
    }
    ReconOptions fft, grappa;
    grappa.method = ReconMethod::Grappa;
    const ImageVolume g = reconstruct_volume(r, grappa, {}, {});
    const ImageVolume zf = reconstruct_volume(r, fft, {}, {});
    for (int z = 0; z < r.slices; ++z) {
      const double pg = psnr(g.slice(z), ms_.truth.slice(z)), pz = psnr(zf.slice(z), ms_.truth.slice(z));
      qInfo("slice %d: GRAPPA %.1f dB, zero-filled %.1f dB", z, pg, pz);
      QVERIFY2(pg > 28 && pg > pz + 5, qPrintable(QString("slice %1: GRAPPA %2 dB, zero-filled %3 dB").arg(z).arg(pg).arg(pz)));
    }
  }

  void tof3dPartitionsResolveZ() {
    const Scenario s = tof3d_scenario();
    validate_scenario(s, "test");
    auto engine = make_simulation_engine(Backend::Cpu);
    const VolumeSimulationResult r = simulate_volume(s, z_varying_phantom(s, 1.0), *engine, {}, {});
    qInfo("3-D tof simulation: %.2f s", r.seconds);
    QCOMPARE(r.raw.partitions, 11);
    const ImageVolume v = reconstruct_volume(r.raw, ReconOptions{}, {}, {});
    QCOMPARE(v.nz, 11);
    std::vector<double> cx;
    for (int z = 0; z < v.nz; ++z) {
      const Image2D img = v.slice(z), ref = r.truth.slice(z);
      const PlaneStats a = stats(img), t = stats(ref);
      const double p = psnr(img, ref);
      qInfo("partition %2d: PSNR %.1f dB, energy %.4g (truth %.4g), centroid x %.2f (truth %.2f)", z, p, a.energy, t.energy,
            a.centroid_x, t.centroid_x);
      QVERIFY2(p > 30, qPrintable(QString("partition %1: PSNR %2 dB (bar 30)").arg(z).arg(p)));
      QVERIFY(std::abs(a.energy / t.energy - 1) < 0.05);
      QVERIFY(std::abs(a.centroid_x - t.centroid_x) < 0.3);
      cx.push_back(a.centroid_x);
    }
    // z structure resolved: the cut moves 1 mm in x per mm of z, so the centroid crosses several pixels
    // from the first partition to the last (each partition matching its own truth above).
    QVERIFY2(cx.back() - cx.front() > 4, qPrintable(QString("centroid span %1 px").arg(cx.back() - cx.front())));
  }

  // The GUI's pipeline on a 3-D scenario: the central partition against its truth.
  void pipelineShowsTheCentralPartition() {
    const PipelineResult r = run_pipeline(tof3d_scenario(), {}, {});
    QCOMPARE(r.recon.nx, 32);
    QCOMPARE(r.raw.partitions, 1);
    qInfo("pipeline, central partition: PSNR %.1f dB", r.metrics.psnr_db);
    QVERIFY(r.metrics.psnr_db > 30);
  }

  void scenarioFieldsRoundTripAndRefuseBadValues() {
    const Scenario s = tof3d_scenario();
    const Scenario b = scenario_from_json_text(scenario_to_json_text(s), "rt");
    QCOMPARE(b.sequence.partitions, 11);
    QCOMPARE(b.sequence.slice_thickness_m, 0.044);
    QCOMPARE(scenario_to_json_text(b), scenario_to_json_text(s));
    const Scenario m = multislice_scenario();
    const Scenario mb = scenario_from_json_text(scenario_to_json_text(m), "rt");
    QCOMPARE(mb.sequence.slices, 4);
    QCOMPARE(mb.sequence.slice_gap_m, 0.004);
    // Single-slice scenarios keep their text: the new fields are absent there.
    QVERIFY(!QString::fromStdString(scenario_to_json_text(Scenario{})).contains("slices"));
    auto refused = [](Scenario x, const char* field) {
      try {
        validate_scenario(x, "bad.json");
      } catch (const InputError& e) {
        return QString(e.what()).contains(field) && !QString(e.what()).contains('\n');
      }
      return false;
    };
    Scenario x = m;
    x.sequence.slices = 0;
    QVERIFY(refused(x, "sequence.slices"));
    x = m;
    x.phantom.slab_thickness_m = 0;
    QVERIFY(refused(x, "phantom.slab_thickness_m"));
    x = base_scenario(SequenceType::SpoiledGre);
    x.phantom.slab_thickness_m = 0.02;
    x.sequence.partitions = 8;
    QVERIFY(refused(x, "sequence.partitions"));
    x = m;
    x.sequence.slice_gap_m = -0.001;
    QVERIFY(refused(x, "sequence.slice_gap_m"));
    QVERIFY_THROWS_EXCEPTION(InputError, scenario_from_json_text(R"({"format": "mrwb-scenario", "version": 1,
      "sequence": {"slices": "four"}})", "bad.json"));
  }
};

QTEST_GUILESS_MAIN(TestMultislice)
#include "test_multislice.moc"
