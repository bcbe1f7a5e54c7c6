// The vendor collective library (NCCL on NVIDIA, RCCL on AMD), loaded at run time with dlopen so that the suite
// builds, lists and parses suites where it is absent, and the collective cases fail with a clear "skipped"
// message instead (docs/kernels.md, "Collectives").
//
// Only the entry points the cases call are declared, with the C signatures and enumerator values of the public
// nccl.h (https://github.com/NVIDIA/nccl/blob/master/src/nccl.h.in; RCCL's rccl.h declares the same): no header
// of either library is needed to build. Enumerations travel as int (a C enum whose values fit an int is passed as
// one on x86-64 and AArch64), the communicator is an opaque pointer and the stream is passed as void* (cudaStream_t
// and hipStream_t are both pointers). ncclSend and ncclRecv exist from NCCL 2.7 on.
//
// Host-only: no GPU runtime header, so the tests in tests/kernels/ load (and fail to load) it without a GPU.
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace tk {

struct CollectiveLibrary {
  // ncclResult_t: ncclSuccess = 0 (anything else is an error ncclGetErrorString names).
  using Result = int;
  static constexpr Result kSuccess = 0;
  // ncclDataType_t: ncclFloat16 = 6 (ncclHalf), ncclFloat32 = 7 (ncclFloat).
  static constexpr int kFloat16 = 6;
  static constexpr int kFloat32 = 7;
  // ncclRedOp_t: ncclSum = 0.
  static constexpr int kSum = 0;
  // ncclComm_t: a pointer to an opaque struct.
  using Comm = struct ncclComm*;

  // ncclResult_t ncclGetVersion(int* version);
  Result (*get_version)(int* version) = nullptr;
  // const char* ncclGetErrorString(ncclResult_t result);
  const char* (*get_error_string)(Result result) = nullptr;
  // ncclResult_t ncclCommInitAll(ncclComm_t* comm, int ndev, const int* devlist);
  Result (*comm_init_all)(Comm* comms, int ndev, const int* devlist) = nullptr;
  // ncclResult_t ncclCommDestroy(ncclComm_t comm);
  Result (*comm_destroy)(Comm comm) = nullptr;
  // ncclResult_t ncclGroupStart(void); ncclResult_t ncclGroupEnd(void);
  Result (*group_start)() = nullptr;
  Result (*group_end)() = nullptr;
  // ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
  //                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
  Result (*all_reduce)(const void* send, void* receive, std::size_t count, int datatype, int op, Comm comm,
                       void* stream) = nullptr;
  // ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
  //                            ncclComm_t comm, cudaStream_t stream);
  Result (*all_gather)(const void* send, void* receive, std::size_t send_count, int datatype, Comm comm,
                       void* stream) = nullptr;
  // ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
  //                                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
  Result (*reduce_scatter)(const void* send, void* receive, std::size_t receive_count, int datatype, int op,
                           Comm comm, void* stream) = nullptr;
  // ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
  //                            ncclComm_t comm, cudaStream_t stream);
  Result (*broadcast)(const void* send, void* receive, std::size_t count, int datatype, int root, Comm comm,
                      void* stream) = nullptr;
  // ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
  //                         ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);
  Result (*reduce)(const void* send, void* receive, std::size_t count, int datatype, int op, int root, Comm comm,
                   void* stream) = nullptr;
  // ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
  //                       cudaStream_t stream);
  Result (*send)(const void* send, std::size_t count, int datatype, int peer, Comm comm, void* stream) = nullptr;
  // ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
  //                       cudaStream_t stream);
  Result (*receive)(void* receive, std::size_t count, int datatype, int peer, Comm comm, void* stream) = nullptr;

  std::string name;          // "NCCL" or "RCCL"
  std::string path;          // the file the dynamic loader opened
  int version_code = 0;      // as ncclGetVersion returns it
  std::string version;       // "2.27.7"

  // Throws std::runtime_error naming the call and the library's own message when `result` is not kSuccess.
  void check(Result result, const char* call) const;
};

// The environment variable that names the library file (a path, or a name the dynamic loader searches for).
inline constexpr const char* kCollectiveLibraryVariable = "TESSERA_NCCL_LIB";

// Loads the library once per process and keeps it loaded (never dlclose'd: NCCL keeps threads and state).
// `default_names` are tried in order when TESSERA_NCCL_LIB is unset or empty. Throws CollectiveLibraryMissing
// when no file loads or an entry point is missing; the message says what was tried and how to point the suite
// at the library. The same result (library or error) is returned on every later call.
struct CollectiveLibraryMissing : std::exception {
  explicit CollectiveLibraryMissing(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};
const CollectiveLibrary& load_collective_library(const std::string& name,
                                                 const std::vector<std::string>& default_names);

// The variables that change which algorithm, protocol and how many channels NCCL (and RCCL) choose, in this order;
// every collective result records those that are set under library.env (docs/kernels.md, "Collectives").
inline constexpr const char* kCollectiveChoiceVariables[] = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_MAX_NCHANNELS",
                                                             "NCCL_MIN_NCHANNELS"};

// The kCollectiveChoiceVariables that are set in this process's environment (set to "" counts as set), with their
// values, in that order.
std::vector<std::pair<std::string, std::string>> collective_choice_environment();

// One attempt, not cached (the tests use it): loads from `candidates` in order.
CollectiveLibrary open_collective_library(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace tk
