#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: compiles every fuzz/ target with $CC $CXX $CFLAGS $CXXFLAGS,
# links the engine with $LIB_FUZZING_ENGINE, and copies each binary with its .dict and .options
# into $OUT (names [A-Za-z0-9_], no extension). $WORK holds the build tree.
# The canaries (*_canary) are left out: they crash by design (a planted or historical bug they must
# find), which ClusterFuzzLite would report on every pull request; ci.yml's fuzz smoke
# (scripts/fuzz pr) runs them. Checked locally by scripts/check-clusterfuzzlite.
src="${SRC}/wsim"
[[ -d "${src}" ]] || src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WORK}/wsim-build"
# clang 14's UBSan `function` check fails to compile our coroutines ("Cannot represent a difference
# across sections"); OSS-Fuzz's undefined-behaviour flag list includes it. Harmless otherwise.
CFLAGS="${CFLAGS} -fno-sanitize=function"
CXXFLAGS="${CXXFLAGS} -fno-sanitize=function"
# Coverage only where it guides the search, as in the fuzz presets (fuzz/coverage.ignorelist,
# docs/performance.md §13.2: about half the CPU of an execution).
CFLAGS="${CFLAGS} -fsanitize-coverage-ignorelist=${src}/fuzz/coverage.ignorelist"
CXXFLAGS="${CXXFLAGS} -fsanitize-coverage-ignorelist=${src}/fuzz/coverage.ignorelist"
cmake -S "${src}" -B "${build}" -G Ninja \
  -DCMAKE_C_COMPILER="${CC}" -DCMAKE_CXX_COMPILER="${CXX}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="${CFLAGS}" -DCMAKE_CXX_FLAGS="${CXXFLAGS}" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
  -DWSIM_BUILD_TESTS=OFF -DWSIM_BUILD_FUZZ=ON -DWSIM_LINKER=default \
  -DWSIM_FUZZ_ENGINE="${LIB_FUZZING_ENGINE}"
cmake --build "${build}" --target wsim_fuzz_all -j "${WSIM_JOBS:-$(nproc)}"
for options in "${build}"/fuzz/*.options; do
  name="$(basename "${options}" .options)"
  [[ "${name}" == *_canary ]] && continue
  cp "${build}/fuzz/${name}" "${build}/fuzz/${name}.dict" "${options}" "${OUT}/"
done
