# Sourced by the device scripts (device_smaller_tree.sh, device_wide_shops.sh): binaries built
# here for sm_90, carried xz-compressed in a git-ignored folder to the GPU machine.
#   pack_binaries DIR BUILD pfsp TEST...    here: BUILD/pfsp and BUILD/tests/gpu/TEST into DIR/*.xz
#   unpack_binaries DIR BUILD pfsp TEST...  there: back to the same places, executable
pack_binaries() {
  local dir=$1 build=$2
  shift 2
  mkdir -p "$dir"
  xz -T0 -6 -c "$build/$1" >"$dir/$1.xz"
  for t in "${@:2}"; do xz -T0 -6 -c "$build/tests/gpu/$t" >"$dir/$t.xz"; done
  du -sh "$dir"
}
unpack_binaries() {
  local dir=$1 build=$2
  shift 2
  mkdir -p "$build/tests/gpu"
  xz -dc "$dir/$1.xz" >"$build/$1" && chmod +x "$build/$1"
  for t in "${@:2}"; do xz -dc "$dir/$t.xz" >"$build/tests/gpu/$t" && chmod +x "$build/tests/gpu/$t"; done
}
