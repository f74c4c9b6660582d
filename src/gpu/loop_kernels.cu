// Instantiations of the device loop's parts kernels (loop_bound.cuh).
#include "gpu/loop_bound.cuh"

namespace pfsp::gpu {
namespace {

template <bound_kind Kind, class SC, bool Compact, int M>
parts_kernel_fn children_m(bool shared) {
  if (shared) return parts_children_kernel<Kind, SC, Compact, true, M>;
  return parts_children_kernel<Kind, SC, Compact, false, M>;
}

// LB1 gets a kernel per Taillard machine count (its loops unrolled, parts in registers); LB2's
// pair loop indexes front/back by the pair's machines, so its arrays stay in memory anyway.
template <bound_kind Kind, class SC, bool Compact>
parts_kernel_fn children_for(bool shared, int m) {
  if constexpr (Kind == bound_kind::lb1) {
    switch (m) {
      case 5:
        return children_m<Kind, SC, Compact, 5>(shared);
      case 10:
        return children_m<Kind, SC, Compact, 10>(shared);
      case 20:
        return children_m<Kind, SC, Compact, 20>(shared);
      default:
        break;
    }
  }
  return children_m<Kind, SC, Compact, 0>(shared);
}

// The parent kernel per Taillard machine count (node_parts unrolled, parts in registers).
template <class Job, bool Compact, bool Masks>
parts_kernel_fn parents_for(int m) {
  switch (m) {
    case 5:
      return parent_parts_kernel<Job, Compact, Masks, 5>;
    case 10:
      return parent_parts_kernel<Job, Compact, Masks, 10>;
    case 20:
      return parent_parts_kernel<Job, Compact, Masks, 20>;
    default:
      return parent_parts_kernel<Job, Compact, Masks, 0>;
  }
}

// The chain's LB2 pass with G lanes a child (lb2_lanes_kernel), G > 1.
template <class SC, bool Compact>
parts_kernel_fn lanes_for(bool shared, int lanes) {
  switch (lanes) {
    case 2:
      return shared ? lb2_lanes_kernel<SC, Compact, true, 2> : lb2_lanes_kernel<SC, Compact, false, 2>;
    case 4:
      return shared ? lb2_lanes_kernel<SC, Compact, true, 4> : lb2_lanes_kernel<SC, Compact, false, 4>;
    case 8:
      return shared ? lb2_lanes_kernel<SC, Compact, true, 8> : lb2_lanes_kernel<SC, Compact, false, 8>;
    default:
      return shared ? lb2_lanes_kernel<SC, Compact, true, 16> : lb2_lanes_kernel<SC, Compact, false, 16>;
  }
}

// The chain's LB2 pass two children a thread (lb2_pack_kernel), per Taillard machine count (the
// children's set-up unrolled, in registers).
template <class SC, bool Compact, int M>
parts_kernel_fn pack_m(bool shared) {
  return shared ? lb2_pack_kernel<SC, Compact, true, M> : lb2_pack_kernel<SC, Compact, false, M>;
}

template <class SC, bool Compact>
parts_kernel_fn pack_for(bool shared, int m) {
  switch (m) {
    case 5:
      return pack_m<SC, Compact, 5>(shared);
    case 10:
      return pack_m<SC, Compact, 10>(shared);
    case 20:
      return pack_m<SC, Compact, 20>(shared);
    default:
      return pack_m<SC, Compact, 0>(shared);
  }
}

// The parents kernel with the LB1 pass (parts_lb1_kernel): int tables, 5, 10 or 20 machines; null
// elsewhere (the caller then keeps the two kernels).
template <class SC, bool Compact, bool Masks>
parts_kernel_fn fused_for(int m) {
  if constexpr (Compact) {
    return nullptr;
  } else {
    switch (m) {
      case 5:
        return parts_lb1_kernel<SC, Compact, Masks, 5>;
      case 10:
        return parts_lb1_kernel<SC, Compact, Masks, 10>;
      case 20:
        return parts_lb1_kernel<SC, Compact, Masks, 20>;
      default:
        return nullptr;
    }
  }
}

// LB1 alone, fused and deciding (parts_lb1_decide_kernel): the same machine counts.
template <class SC, bool Compact>
parts_kernel_fn deciding_for(int m) {
  if constexpr (Compact) {
    return nullptr;
  } else {
    switch (m) {
      case 5:
        return parts_lb1_decide_kernel<SC, Compact, 5>;
      case 10:
        return parts_lb1_decide_kernel<SC, Compact, 10>;
      case 20:
        return parts_lb1_decide_kernel<SC, Compact, 20>;
      default:
        return nullptr;
    }
  }
}

// LB1 in the parents kernel f where asked and instantiated (f not null): the first kernel goes;
// deciding: f is parts_lb1_decide_kernel (LB1 alone), so decide_warp_kernel goes too.
inline void fuse_lb1(parts_kernels& k, bool lb1_fused, parts_kernel_fn f, bool deciding) {
  if (!lb1_fused || !f) return;
  k.parents = f;
  k.first = nullptr;
  k.fused = true;
  k.decides = deciding;
}

template <class SC, bool Compact>
parts_kernels by_class(bound_kind kind, int m, bool shared_first, bool shared_second, int lanes, bool table, bool pack,
                       bool lb1_fused) {
  using Job = typename SC::job;
  parts_kernels k;
  switch (kind) {
    case bound_kind::lb1:
      k.parents = parents_for<Job, Compact, false>(m);
      k.first = children_for<bound_kind::lb1, SC, Compact>(shared_first, m);
      fuse_lb1(k, lb1_fused, deciding_for<SC, Compact>(m), true);
      break;
    case bound_kind::lb2:
      k.parents = parents_for<Job, Compact, true>(m);
      k.first = children_for<bound_kind::lb2, SC, Compact>(shared_first, m);
      break;
    case bound_kind::lb1_lb2:
      // The chain: LB1 on every child, then LB2 (max(LB1, pairs), what lb1_lb2 gives a child
      // LB1 did not prune) on the compacted survivors only.
      k.parents = parents_for<Job, Compact, true>(m);
      k.first = children_for<bound_kind::lb1, SC, Compact>(shared_first, m);
      fuse_lb1(k, lb1_fused, fused_for<SC, Compact, true>(m), false);
      if (table) {  // option I: a warp a parent, LB2 from its table
        k.second = shared_second ? lb2_table_kernel<SC, Compact, true> : lb2_table_kernel<SC, Compact, false>;
        k.table = true;
        break;
      }
      if constexpr (SC::max_n <= 64) {
        if (pack && lanes == 1) {  // option L: two children a thread in 16-bit halves
          k.second = pack_for<SC, Compact>(shared_second, m);
          k.pack = true;
          break;
        }
      }
      k.second = lanes > 1 ? lanes_for<SC, Compact>(shared_second, lanes)
                           : children_for<bound_kind::lb1_lb2, SC, Compact>(shared_second, m);  // LB1 known (option G)
      break;
  }
  return k;
}

template <class SC>
parts_kernels by_compact(bound_kind kind, int m, bool compact, bool shared_first, bool shared_second, int lanes,
                         bool table, bool pack, bool lb1_fused) {
  if (compact) return by_class<SC, true>(kind, m, shared_first, shared_second, lanes, table, pack, lb1_fused);
  return by_class<SC, false>(kind, m, shared_first, shared_second, lanes, table, pack, lb1_fused);
}

}  // namespace

parts_kernels select_parts_kernels(bound_kind kind, int m, int size_class_id, bool compact, bool shared_first,
                                   bool shared_second, int lb2_lanes, bool lb2_table, bool lb2_pack, bool lb1_fused) {
  switch (size_class_id) {
    case 0:
      return by_compact<size_small>(kind, m, compact, shared_first, shared_second, lb2_lanes, lb2_table, lb2_pack,
                                    lb1_fused);
    case 1:
      return by_compact<size_medium>(kind, m, compact, shared_first, shared_second, lb2_lanes, lb2_table, lb2_pack,
                                     lb1_fused);
    default:
      return by_compact<size_large>(kind, m, compact, shared_first, shared_second, lb2_lanes, lb2_table, lb2_pack,
                                    lb1_fused);
  }
}

}  // namespace pfsp::gpu
