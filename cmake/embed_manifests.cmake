# Writes OUT: a C++ table of the dataset manifests under DIR (datasets/*.yaml),
# so the binary carries them wherever it runs.
file(GLOB manifests ${DIR}/*.yaml)
list(SORT manifests)
set(body "")
foreach(manifest ${manifests})
  get_filename_component(stem ${manifest} NAME_WE)
  file(READ ${manifest} text)
  string(APPEND body "    {\"${stem}\", R\"repro_manifest(${text})repro_manifest\"},\n")
endforeach()
file(WRITE ${OUT}.new "#include <map>\n#include <string>\nnamespace repro {\nconst std::map<std::string, std::string>& manifest_texts() {\n  static const std::map<std::string, std::string> texts = {\n${body}  };\n  return texts;\n}\n}  // namespace repro\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
