#pragma once
// FFT helpers over FFTW shared by every domain.
#include <complex>
#include <cstddef>
#include <mutex>
#include <vector>

namespace mrwb {

// FFTW's planner is not thread-safe (execution is): every plan made or destroyed in the process holds this
// one lock.
std::mutex& fftw_planner_mutex();

// Double-precision transforms from this many points on are planned on every core (FFTW's threads): a 512^2
// Toeplitz FFT of the CG's normal operator was 65 % of a 256^2 CPU reconstruction on one thread.
constexpr std::size_t k_fft_threaded_points = std::size_t{1} << 16;
// With fftw_planner_mutex() held: the next double-precision plans use all cores for `points` >=
// k_fft_threaded_points, one thread below (a plan keeps the count it was made with).
void fftw_plan_threads_locked(std::size_t points);

// Centred inverse 2-D DFT of one [ny][nx] array (FFTW); image index i <-> x = (i − n/2)·dx.
std::vector<std::complex<float>> centred_ifft2(const std::complex<float>* k, int nx, int ny);
// Its exact inverse, the centred forward 2-D DFT (unnormalised): n·conj(centred_ifft2(conj(image))).
std::vector<std::complex<float>> centred_fft2(const std::complex<float>* image, int nx, int ny);

}  // namespace mrwb
