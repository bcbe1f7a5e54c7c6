#pragma once
namespace tessera::app {
// Set by CMake from project(VERSION ...).
inline constexpr const char* kVersion = TESSERA_VERSION;
}  // namespace tessera::app
