#pragma once
// FFT helpers over FFTW shared by every domain.
#include <complex>
#include <mutex>
#include <vector>

namespace mrwb {

// FFTW's planner is not thread-safe (execution is): every plan made or destroyed in the process holds this
// one lock.
std::mutex& fftw_planner_mutex();

// Centred inverse 2-D DFT of one [ny][nx] array (FFTW); image index i <-> x = (i − n/2)·dx.
std::vector<std::complex<float>> centred_ifft2(const std::complex<float>* k, int nx, int ny);

}  // namespace mrwb
