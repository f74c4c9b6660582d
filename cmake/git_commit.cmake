# Helpers of the build-time stamp scripts (src/app/cmake/commit_stamp.cmake for results,
# bench/cmake/stamp.cmake for benchmark JSON), run with cmake -P at every build.

# Sets `out` to OVERRIDE if given (where the checkout's .git is not the tree's, as on the GPU
# machine), else to git's short HEAD in `source_dir` with "-dirty" when tracked files under the
# given paths differ from it; "unknown" without git.
function(pfsp_git_commit out source_dir override)
  if(override)
    set(${out} "${override}" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${source_dir}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT commit)
    set(${out} "unknown" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND git diff --quiet HEAD -- ${ARGN} WORKING_DIRECTORY ${source_dir} RESULT_VARIABLE dirty)
  if(NOT dirty EQUAL 0)
    set(commit "${commit}-dirty")
  endif()
  set(${out} "${commit}" PARENT_SCOPE)
endfunction()

# Writes `text` to `file` only when it differs, so that an unchanged stamp recompiles nothing.
function(pfsp_write_if_changed file text)
  set(old "")
  if(EXISTS ${file})
    file(READ ${file} old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE ${file} "${text}")
  endif()
endfunction()
