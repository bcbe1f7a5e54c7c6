# Compile time: CI builds everything twice on two cores (docs/robustness.md, "CI"), so the two costs
# that dominate it are cut here, each behind an option (docs/robustness.md lists the build options).
#
# 1. Headers parsed again in every source file. The command-line layer's files each spend most of
#    their compile time parsing the same third-party headers (Boost.Program_options and Boost.Graph,
#    nlohmann/json, yaml-cpp, fmt); a target compiled with tessera_precompile_headers parses them once.
option(TESSERA_PRECOMPILE_HEADERS "Precompile the third-party headers of the command-line layer" ON)

# 2. Optimising code whose run time is negligible: the command-line layer, the config schema, the
#    reports and the tests. Their compile time is large (the schema's many small functions, doctest's
#    macros) and -O3 takes twice as long as -O0 over them, while a run's time is spent in the models,
#    the engine and the workloads, which keep the build type's flags. TESSERA_COLD_CODE_FLAGS applies
#    to the targets marked with tessera_cold_code in optimised builds (Release, RelWithDebInfo,
#    MinSizeRel): -O1 by default; CI's sanitizer build sets -O0, where an optimised compile takes
#    three to four times as long.
set(TESSERA_COLD_CODE_FLAGS "-O1" CACHE STRING
    "Compiler flags for code whose run time is negligible, in optimised builds (empty: the build type's)")

set(TESSERA_PRECOMPILED_HEADERS
  <algorithm> <filesystem> <functional> <map> <memory> <optional> <string> <string_view> <variant> <vector>
  <boost/graph/adjacency_list.hpp> <boost/program_options.hpp> <fmt/format.h> <nlohmann/json.hpp>
  <yaml-cpp/yaml.h>)

function(tessera_precompile_headers target)
  if(TESSERA_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${TESSERA_PRECOMPILED_HEADERS})
  endif()
endfunction()

function(tessera_cold_code target)
  if(TESSERA_COLD_CODE_FLAGS)
    # Target options follow the build type's flags on the command line, so this -O is the one that applies.
    separate_arguments(flags UNIX_COMMAND "${TESSERA_COLD_CODE_FLAGS}")
    target_compile_options(${target} PRIVATE
      "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release,RelWithDebInfo,MinSizeRel>>:${flags}>")
  endif()
endfunction()
