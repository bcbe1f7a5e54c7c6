#pragma once
// The version every result names (summaries, calibrated files, reports, a sweep point's config hash).
namespace tessera::app::run {
// Set by CMake from project(VERSION ...).
inline constexpr const char* kVersion = TESSERA_VERSION;
}  // namespace tessera::app::run
