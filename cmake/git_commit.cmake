# Writes OUT with the current git commit (and "-dirty" when the tree has changes). A copy
# of the tree without .git (a GPU machine: the device tool carries files, not the
# repository) takes the commit scripts/device-bundle wrote into .device/COMMIT.
execute_process(COMMAND git -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
  if(EXISTS ${SRC}/.device/COMMIT)
    file(STRINGS ${SRC}/.device/COMMIT bundled LIMIT_COUNT 1 REGEX "^[0-9a-f]+(-dirty)?$")
    if(bundled)
      set(commit "${bundled}")
    endif()
  endif()
else()
  execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    set(commit "${commit}-dirty")
  endif()
endif()
set(text "namespace repro { const char* git_commit() { return \"${commit}\"; } }\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
