// Instantiations of the bounding kernels for bound_kind::lb2 (see bound_kernels.cuh).
#include "gpu/bound_kernels.cuh"

namespace pfsp::gpu {

template <>
kernel_pair kernels_for<bound_kind::lb2>(int variant, bool shared, int size_class_id, bool compact) {
  return make_kernels<bound_kind::lb2>(variant, shared, size_class_id, compact);
}

}  // namespace pfsp::gpu
