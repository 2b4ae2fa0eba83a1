"""PEP 517 backend for chevron's wheel: maturin's, after building what maturin cannot.

maturin packages the `chevron` binary (bindings = "bin"). `chevron exec` also needs chevron's CUDA
libraries beside it, in the layout scripts/install writes (PREFIX/lib/chevron/), and C users want
libchevron and its header. This backend builds those crates with cargo, copies them into the
wheel's data folder (installed under the environment's prefix: venv/lib/chevron/...), then hands
over to maturin. CHEVRON_WHEEL_PROFILE=dev builds with the dev profile (the test build), for CI.
"""

import os
import re
import shutil
import subprocess

import maturin

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "target", "wheel-data", "chevron.data", "data")

# `pkg-config --cflags --libs chevron` with PKG_CONFIG_PATH=$VIRTUAL_ENV/lib/pkgconfig: the
# environment's folder is not known when the wheel is built, so the file names it relative to
# itself (pkg-config's `pcfiledir`).
PKG_CONFIG = """prefix=${pcfiledir}/../..
libdir=${prefix}/lib
includedir=${prefix}/include

Name: chevron
Description: GPU kernel-launch runtime: launch-by-name C API and MLIR's mgpu ABI
Version: %s
Cflags: -I${includedir}
Libs: -L${libdir} -Wl,-rpath,${libdir} -lchevron
Libs.private: -lpthread -ldl -lm
"""

# Every hook maturin's backend has, unchanged, except build_wheel.
get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
build_sdist = maturin.build_sdist


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    # maturin checks that the data folder exists before build_wheel fills it.
    os.makedirs(DATA, exist_ok=True)
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def _profile():
    profile = os.environ.get("CHEVRON_WHEEL_PROFILE", "release")
    if profile not in ("release", "dev"):
        raise RuntimeError("CHEVRON_WHEEL_PROFILE must be release or dev, not %r" % profile)
    return profile


def _libraries(profile):
    """Builds the library crates and returns the folder holding them."""
    crates = ["chevron-driver", "chevron-libcuda", "chevron-capi"]
    command = ["cargo", "build", "--locked"]
    for crate in crates:
        command += ["-p", crate]
    if profile == "release":
        command.append("--release")
    subprocess.run(command, cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release" if profile == "release" else "debug")


def _version():
    """The workspace's version, as Cargo.toml gives it."""
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as manifest:
        return re.search(r'^version = "([^"]+)"', manifest.read(), re.MULTILINE).group(1)


def _lay_out(built):
    """Copies the libraries and the header into the wheel's data folder, with a pkg-config file."""
    shutil.rmtree(DATA, ignore_errors=True)
    cuda = os.path.join(DATA, "lib", "chevron")
    os.makedirs(cuda)
    os.makedirs(os.path.join(DATA, "include"))
    os.makedirs(os.path.join(DATA, "lib", "pkgconfig"))
    with open(os.path.join(DATA, "lib", "pkgconfig", "chevron.pc"), "w", encoding="utf-8") as pc:
        pc.write(PKG_CONFIG % _version())
    for library in ("libchevron_driver.so", "libcuda.so"):
        shutil.copy2(os.path.join(built, library), os.path.join(cuda, library))
    shutil.copy2(os.path.join(built, "libchevron.so"), os.path.join(DATA, "lib", "libchevron.so"))
    shutil.copy2(os.path.join(ROOT, "include", "chevron.h"),
                 os.path.join(DATA, "include", "chevron.h"))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    profile = _profile()
    _lay_out(_libraries(profile))
    if profile == "dev":
        extra = os.environ.get("MATURIN_PEP517_ARGS", "")
        os.environ["MATURIN_PEP517_ARGS"] = (extra + " --profile dev").strip()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
