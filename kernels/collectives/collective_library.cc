#include "collectives/collective_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "collectives/collective_sizes.h"

namespace tk {

namespace {

// dlsym's object pointer as the function pointer type of `slot` (conditionally supported by C++, what POSIX
// requires of dlsym).
template <class Function>
bool bind(void* handle, const char* symbol, Function& slot, std::string& missing) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    return false;
  }
  slot = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

void CollectiveLibrary::check(Result result, const char* call) const {
  if (result == kSuccess) return;
  const char* text = get_error_string != nullptr ? get_error_string(result) : nullptr;
  throw std::runtime_error(name + " " + call + " failed: " + (text != nullptr ? text : "unknown error") + " (code " +
                           std::to_string(result) + ")");
}

std::vector<std::pair<std::string, std::string>> collective_choice_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* variable : kCollectiveChoiceVariables) {
    const char* value = std::getenv(variable);
    if (value != nullptr) out.emplace_back(variable, value);
  }
  return out;
}

CollectiveLibrary open_collective_library(const std::string& name, const std::vector<std::string>& candidates) {
  std::string tried;
  void* handle = nullptr;
  std::string opened;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: the library's symbols stay out of the global namespace (nothing else here links against them).
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      opened = candidate;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + candidate + ": " + (why != nullptr ? why : "not loadable");
  }
  if (handle == nullptr) {
    throw CollectiveLibraryMissing(name + " (the collective library) could not be loaded; tried:" + tried +
                                   "\n  set " + kCollectiveLibraryVariable + " to the library's path");
  }
  CollectiveLibrary library;
  library.name = name;
  std::string missing;
  bind(handle, "ncclGetVersion", library.get_version, missing);
  bind(handle, "ncclGetErrorString", library.get_error_string, missing);
  bind(handle, "ncclCommInitAll", library.comm_init_all, missing);
  bind(handle, "ncclCommDestroy", library.comm_destroy, missing);
  bind(handle, "ncclGroupStart", library.group_start, missing);
  bind(handle, "ncclGroupEnd", library.group_end, missing);
  bind(handle, "ncclAllReduce", library.all_reduce, missing);
  bind(handle, "ncclAllGather", library.all_gather, missing);
  bind(handle, "ncclReduceScatter", library.reduce_scatter, missing);
  bind(handle, "ncclBroadcast", library.broadcast, missing);
  bind(handle, "ncclReduce", library.reduce, missing);
  bind(handle, "ncclSend", library.send, missing);  // NCCL 2.7 and later
  bind(handle, "ncclRecv", library.receive, missing);
  // The file actually opened (a bare name is resolved by the dynamic loader's search).
  library.path = opened;
  if (library.get_version != nullptr) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(library.get_version), &info) != 0 && info.dli_fname != nullptr) {
      library.path = info.dli_fname;
    }
  }
  if (!missing.empty()) {
    dlclose(handle);
    throw CollectiveLibraryMissing(opened + " lacks " + missing + ": not " + name +
                                   " (the collective library)? set " + kCollectiveLibraryVariable +
                                   " to the library's path");
  }
  library.check(library.get_version(&library.version_code), "ncclGetVersion");
  library.version = collective_version_text(library.version_code);
  return library;
}

const CollectiveLibrary& load_collective_library(const std::string& name,
                                                 const std::vector<std::string>& default_names) {
  static std::once_flag once;
  static std::unique_ptr<CollectiveLibrary> loaded;
  static std::string failure;
  std::call_once(once, [&] {
    std::vector<std::string> candidates = default_names;
    const char* chosen = std::getenv(kCollectiveLibraryVariable);
    if (chosen != nullptr && *chosen != '\0') candidates = {chosen};
    try {
      loaded = std::make_unique<CollectiveLibrary>(open_collective_library(name, candidates));
    } catch (const std::exception& error) {
      failure = error.what();
    }
  });
  if (!loaded) throw CollectiveLibraryMissing(failure);
  return *loaded;
}

}  // namespace tk
