#include "sim/app/sweep/mpi_session.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string_view>

#if TESSERA_HAVE_MPI
#include <mpi.h>
#endif

namespace tessera::app::sweep {
namespace {

std::optional<int> env_int(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  int v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

template <class... Names>
std::optional<int> first_env_int(Names... names) {
  std::optional<int> v;
  ((v = v ? v : env_int(names)), ...);
  return v;
}

#if TESSERA_HAVE_MPI
// Large payloads go in pieces: MPI counts are ints.
constexpr std::uint64_t kChunkBytes = 1ULL << 30;

void send_string(const std::string& s, int to) {
  const std::uint64_t n = s.size();
  MPI_Send(&n, 1, MPI_UINT64_T, to, 0, MPI_COMM_WORLD);
  for (std::uint64_t off = 0; off < n; off += kChunkBytes) {
    MPI_Send(s.data() + off, static_cast<int>(std::min(kChunkBytes, n - off)), MPI_CHAR, to, 1, MPI_COMM_WORLD);
  }
}

std::string receive_string(int from) {
  std::uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string s(n, '\0');
  for (std::uint64_t off = 0; off < n; off += kChunkBytes) {
    MPI_Recv(s.data() + off, static_cast<int>(std::min(kChunkBytes, n - off)), MPI_CHAR, from, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  return s;
}
#endif

}  // namespace

MpiLaunch detect_mpi_launch() {
  MpiLaunch l;
  const std::optional<int> rank = first_env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK");
  l.launched = rank.has_value();
  l.rank = rank.value_or(0);
  l.size = first_env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
  if (!l.size && std::getenv("PMIX_RANK") != nullptr) l.size = env_int("SLURM_NTASKS");
  l.local_size = first_env_int("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS");
  return l;
}

bool MpiSession::built_with_mpi() { return TESSERA_HAVE_MPI != 0; }

MpiSession::MpiSession() {
  const MpiLaunch launch = detect_mpi_launch();
  // One rank (or no launcher): nothing to share, and MPI is never started.
  if (!launch.launched || launch.size.value_or(2) <= 1) return;
#if TESSERA_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // only this thread calls MPI
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  local_size_ = std::max(1, launch.local_size.value_or(1));
#else
  if (launch.rank == 0) {
    std::cerr << "tessera sweep: warning: launched by MPI with " << *launch.size
              << " ranks, but this tessera was built without MPI: rank 0 runs the whole study and the other ranks"
                 " do nothing (install libboost-mpi-dev and openmpi-bin, then rebuild)\n";
  }
  standby_ = launch.rank != 0;
#endif
}

MpiSession::~MpiSession() {
#if TESSERA_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

std::vector<std::string> MpiSession::gather_to_root(const std::string& mine) const {
  std::vector<std::string> all;
#if TESSERA_HAVE_MPI
  if (initialised_) {
    if (rank_ != 0) {
      send_string(mine, 0);
      return all;
    }
    all.push_back(mine);
    for (int r = 1; r < size_; ++r) all.push_back(receive_string(r));
    return all;
  }
#endif
  all.push_back(mine);
  return all;
}

std::vector<std::string> MpiSession::all_gather(const std::string& mine) const {
  std::vector<std::string> all = gather_to_root(mine);
#if TESSERA_HAVE_MPI
  if (initialised_) {
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r) {
        for (const std::string& s : all) send_string(s, r);
      }
    } else {
      for (int r = 0; r < size_; ++r) all.push_back(receive_string(0));
    }
  }
#endif
  return all;
}

}  // namespace tessera::app::sweep
