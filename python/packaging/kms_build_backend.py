"""PEP 517 build backend of the kmeans-studio Python package: drives the CMake build.

pyproject.toml (the repository root) names this module as its in-tree backend
(backend-path = ["python/packaging"]); it needs nothing from the network and nothing
beyond the Python standard library at build time (`requires = []`), so both

    pip install --no-build-isolation .          (also from a wheel: pip install kmeans_studio-*.whl)
    python3 -m build --no-isolation             (sdist, then the wheel built from the sdist)

work offline on Debian 12 with cmake, ninja (or make), g++, pybind11-dev and python3-numpy.

The wheel holds python/kmeans_studio/*.py and the extension kmeans_studio._engine built by
CMake's target kms_python_engine for the running interpreter (-DKMS_PYTHON_MODULE_PYTHON=
sys.executable), with the CUDA back end where the build finds nvcc (CMake's own rule), without
the studio, the tests and the benchmarks.

Environment:
  KMS_PYTHON_PREBUILT=DIR   package the extension already built in the CMake build folder DIR
                            (DIR/python/kmeans_studio/_engine*.so) instead of building: CI packs the
                            module it has just built (tests/python_packaging.sh)
  KMS_PYTHON_BUILD_DIR=DIR  the CMake build folder (default: <source>/build-python-wheel; kept between
                            builds, so a second pip install rebuilds incrementally)
  KMS_CMAKE_ARGS="..."      extra CMake arguments (e.g. -DKMS_WITH_CUDA=OFF)
"""
import base64
import glob
import hashlib
import io
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAME = "kmeans_studio"            # the import name and the wheel's file name
DIST_NAME = "kmeans-studio"       # the distribution name in the metadata
SDIST_PARTS = ("pyproject.toml", "CMakeLists.txt", "README.md", "core", "gpu", "app", "python")
SUMMARY = "Exact, deterministic k-means (Lloyd, Elkan, Hamerly, Yinyang, Exponion) with scikit-learn's KMeans API"


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(\s*kmeans_studio\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise RuntimeError("no project(kmeans_studio VERSION x.y.z) in CMakeLists.txt")
    return match.group(1)


def metadata_text():
    description = (
        "kmeans_studio.KMeans: scikit-learn's estimator over kmeans-studio's C++20 engine (exact accelerated\n"
        "solvers, bitwise deterministic for any thread count, float32/float64, dense and sparse input,\n"
        "sample weights, Ctrl-C), plus k_means, kmeans_plusplus, sweep, SpectralClustering, geo_project and\n"
        "scores. Documentation: docs/python.md in the source.\n")
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {DIST_NAME}",
        f"Version: {version()}",
        f"Summary: {SUMMARY}",
        "Requires-Python: >=3.9",
        "Requires-Dist: numpy",
        "Provides-Extra: sklearn",
        'Requires-Dist: scikit-learn>=1.2; extra == "sklearn"',
        'Requires-Dist: scipy; extra == "sklearn"',
        "Classifier: Programming Language :: C++",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Topic :: Scientific/Engineering",
        "Description-Content-Type: text/plain",
        "",
        description,
    ]
    return "\n".join(lines)


def wheel_tag():
    interpreter = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{interpreter}-{interpreter}-{platform}"


def dist_info_name():
    return f"{NAME}-{version()}.dist-info"


# ------------------------------------------------------------------ the CMake build
def built_extension():
    """The path of kmeans_studio/_engine*.so: built by CMake, or the one KMS_PYTHON_PREBUILT names."""
    prebuilt = os.environ.get("KMS_PYTHON_PREBUILT")
    if prebuilt:
        build_dir = pathlib.Path(prebuilt).resolve()
    else:
        build_dir = pathlib.Path(os.environ.get("KMS_PYTHON_BUILD_DIR", ROOT / "build-python-wheel")).resolve()
        generator = ["-G", "Ninja"] if shutil.which("ninja") and not (build_dir / "Makefile").exists() else []
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator, "-DCMAKE_BUILD_TYPE=Release",
                     "-DKMS_WITH_QT=OFF", "-DKMS_BUILD_TESTS=OFF", "-DKMS_BUILD_BENCH=OFF",
                     f"-DKMS_PYTHON_MODULE_PYTHON={sys.executable}",
                     *shlex.split(os.environ.get("KMS_CMAKE_ARGS", ""))]
        configured = subprocess.run(configure, check=True, stdout=subprocess.PIPE, text=True)
        sys.stderr.write(configured.stdout)
        # CMake leaves the module out, with its reason, where pybind11 or NumPy is missing:
        # say that, not ninja's "unknown target".
        off = re.search(r"Python module OFF \((.*)\)", configured.stdout)
        if off:
            raise RuntimeError(f"the module {NAME}._engine cannot be built for {sys.executable}: {off.group(1)}")
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "kms_python_engine", "-j",
                        str(os.cpu_count() or 1)], check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    found = sorted(glob.glob(str(build_dir / "python" / NAME / f"_engine*{suffix}")))
    if not found:
        raise RuntimeError(f"no {NAME}/_engine{suffix} under {build_dir}/python: the CMake build did not make the "
                           "module for this interpreter (is pybind11-dev installed? cmake's log says)")
    return pathlib.Path(found[0])


# ------------------------------------------------------------------ PEP 517 hooks
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = pathlib.Path(metadata_directory) / dist_info_name()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(metadata_text())
    return folder.name


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    extension = built_extension()
    files = {}
    for source in sorted((ROOT / "python" / NAME).glob("*.py")):
        files[f"{NAME}/{source.name}"] = source.read_bytes()
    files[f"{NAME}/{extension.name}"] = extension.read_bytes()
    info = dist_info_name()
    files[f"{info}/METADATA"] = metadata_text().encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: kms_build_backend {version()}\nRoot-Is-Purelib: false\n"
                              f"Tag: {wheel_tag()}\n").encode()
    files[f"{info}/top_level.txt"] = f"{NAME}\n".encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{NAME}-{version()}-{wheel_tag()}.whl"
    path = pathlib.Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return wheel_name


def _sdist_files():
    """The files of the parts a wheel build needs that git tracks or would track (git ls-files: not
    the ignored build folders), or every file under them outside a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
                                 *SDIST_PARTS], cwd=ROOT, check=True,
                                capture_output=True).stdout.split(b"\0")
        files = [name.decode() for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for part in SDIST_PARTS:
            path = ROOT / part
            if path.is_file():
                files.append(part)
            else:
                files += [str(p.relative_to(ROOT)) for p in sorted(path.rglob("*"))
                          if p.is_file() and "__pycache__" not in p.parts]
    return sorted({f for f in files if (ROOT / f).is_file()})


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{version()}"
    path = pathlib.Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name in _sdist_files():
            archive.add(str(ROOT / name), arcname=f"{base}/{name}", recursive=False)
        data = metadata_text().encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(data)
        entry.mode = 0o644
        archive.addfile(entry, io.BytesIO(data))
    return path.name
