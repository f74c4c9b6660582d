// Julia set fractal (Frey et al. Section 5.2, Figures 6 and 7; the CUDA SDK's Mandelbrot/Julia
// sample): z <- z^2 + c per pixel until |z| > 2 or `crunch` iterations. The output is the
// iteration count. Tasks map to pixels in 8x4 warp tiles, as in the paper's vanilla kernel.
// `offset` picks one of three regimes of the paper's experiment (Frey Fig. 6): 0 strongly
// divergent, 1 moderately divergent, 2 constant ("offset 2 would result in a black box": every
// pixel runs `crunch` iterations). On the host model at 512x512, crunch 1000, the plain
// kernel's SIMT efficiency is 0.34, 0.76 and 1.00 (task pools with Any: 0.90, 0.92, 1.00).
#pragma once

#include <cstdint>

#include "divergence/hd.hpp"

namespace pfsp::divergence {

struct julia_view_box {
  float cr, ci;  // the constant c
  float x0, y0, width, height;
};

inline julia_view_box julia_offset_view(int offset) {
  switch (offset) {
    case 0:
      return {-0.8f, 0.156f, -0.4f, -0.3f, 0.8f, 0.6f};  // no interior: escape times vary wildly
    case 1:
      return {-0.123f, 0.745f, -1.6f, -1.2f, 3.2f, 2.4f};  // Douady's rabbit: interior and exterior
    default:
      return {-0.123f, 0.745f, -0.06f, -0.045f, 0.12f, 0.09f};  // inside the rabbit's filled set
  }
}

struct julia {
  std::uint32_t width = 0;   // multiple of 8
  std::uint32_t height = 0;  // multiple of 4
  float x0 = -1.6f, y0 = -1.2f, dx = 0.0f, dy = 0.0f;
  float cr = -0.123f, ci = 0.745f;
  std::uint32_t crunch = 1000;
  std::uint32_t* out = nullptr;  // row-major, width * height

  static julia make(std::uint32_t width, std::uint32_t height, int offset, std::uint32_t crunch, std::uint32_t* out) {
    julia j;
    const julia_view_box v = julia_offset_view(offset);
    j.width = width;
    j.height = height;
    j.cr = v.cr;
    j.ci = v.ci;
    j.x0 = v.x0;
    j.y0 = v.y0;
    j.dx = v.width / static_cast<float>(width);
    j.dy = v.height / static_cast<float>(height);
    j.crunch = crunch;
    j.out = out;
    return j;
  }

  struct state {
    std::uint32_t pixel;
    std::uint32_t iteration;
    float zr, zi;
  };
  PFSP_HD std::uint32_t size() const { return width * height; }
  PFSP_HD std::uint32_t pixel_of(std::uint32_t task) const {
    const std::uint32_t tiles_x = width / 8u;
    const std::uint32_t tile = task / 32u, l = task % 32u;
    const std::uint32_t px = (tile % tiles_x) * 8u + l % 8u;
    const std::uint32_t py = (tile / tiles_x) * 4u + l / 8u;
    return py * width + px;
  }
  PFSP_HD state init(std::uint32_t task) const {
    const std::uint32_t p = pixel_of(task);
    const float zr = fma_rn(static_cast<float>(p % width), dx, x0);
    const float zi = fma_rn(static_cast<float>(p / width), dy, y0);
    return {p, 0u, zr, zi};
  }
  // fma everywhere: no contraction choice is left to the compiler, so host and device agree.
  PFSP_HD bool step(state& s) const {
    if (fma_rn(s.zr, s.zr, s.zi * s.zi) > 4.0f || s.iteration >= crunch) return false;
    const float nr = fma_rn(s.zr, s.zr, fma_rn(-s.zi, s.zi, cr));
    s.zi = fma_rn(2.0f * s.zr, s.zi, ci);
    s.zr = nr;
    ++s.iteration;
    return true;
  }
  PFSP_HD void finish(const state& s) const { out[s.pixel] = s.iteration; }
};

}  // namespace pfsp::divergence
