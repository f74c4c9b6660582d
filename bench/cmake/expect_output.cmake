# ctest helper for the benchmark programs' command lines: runs PROGRAM with ARGS (one string,
# split as a shell would) and fails unless the exit code is 0 (EXIT=zero) or not (EXIT=nonzero)
# and stdout + stderr match REGEX.
#   cmake -DPROGRAM=path -DARGS="--bound lb1,x" -DEXIT=nonzero -DREGEX="not in [{]" -P expect_output.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(EXIT STREQUAL "zero" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit code 0, got ${rc}")
elseif(EXIT STREQUAL "nonzero" AND rc EQUAL 0)
  message(FATAL_ERROR "expected a nonzero exit code, got 0")
endif()
if(NOT out MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}'")
endif()
