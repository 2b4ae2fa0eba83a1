//! The ABI structs chevron fills, against the CUDA 13.0 toolkit headers: compiles a C program
//! that prints `sizeof` and every field's `offsetof` and compares them with the Rust
//! definitions in `chevron_cudart`'s `abi` module. Needs the headers from
//! `scripts/deps/cuda_nvcc.sh` and a C compiler, so it is run by `scripts/test.d/cudart.sh`.

use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::process::Command;

use cudart::abi::{
    cudaDeviceProp, cudaFuncAttributes, cudaKernelNodeParams, cudaLaunchAttribute,
    cudaLaunchConfig_t, cudaPointerAttributes, Dim3,
};
use cudart::graphs::generic_nodes::cudaGraphNodeParams;
use cudart::graphs::memory_nodes::{cudaMemAllocNodeParams, cudaMemPoolProps};

/// `(struct, field)` → offset, and `(struct, "sizeof")` → size, from Rust and C side by side.
macro_rules! layout {
    ($($c_name:literal => $ty:ty { $($field:ident),* $(,)? })*) => {{
        let mut rust = BTreeMap::new();
        let mut c = String::new();
        $(
            rust.insert(format!("{} sizeof", $c_name), size_of::<$ty>());
            c.push_str(&format!("    printf(\"%s sizeof %zu\\n\", \"{}\", sizeof(struct {}));\n", $c_name, $c_name));
            $(
                let field = stringify!($field).trim_start_matches("r#");
                rust.insert(format!("{} {}", $c_name, field), offset_of!($ty, $field));
                c.push_str(&format!(
                    "    printf(\"%s %s %zu\\n\", \"{0}\", \"{1}\", offsetof(struct {0}, {1}));\n",
                    $c_name, field
                ));
            )*
        )*
        (rust, c)
    }};
}

#[test]
#[ignore = "needs the CUDA 13.0 headers (scripts/deps/cuda_nvcc.sh); run by scripts/test.d/cudart.sh"]
fn abi_structs_match_the_toolkit_headers() {
    let (rust, body) = layout! {
        "cudaDeviceProp" => cudaDeviceProp {
        name, uuid, luid, luidDeviceNodeMask, totalGlobalMem, sharedMemPerBlock, regsPerBlock,
        warpSize, memPitch, maxThreadsPerBlock, maxThreadsDim, maxGridSize, totalConstMem, major,
        minor, textureAlignment, texturePitchAlignment, multiProcessorCount, integrated,
        canMapHostMemory, maxTexture1D, maxTexture1DMipmap, maxTexture2D, maxTexture2DMipmap,
        maxTexture2DLinear, maxTexture2DGather, maxTexture3D, maxTexture3DAlt, maxTextureCubemap,
        maxTexture1DLayered, maxTexture2DLayered, maxTextureCubemapLayered, maxSurface1D,
        maxSurface2D, maxSurface3D, maxSurface1DLayered, maxSurface2DLayered, maxSurfaceCubemap,
        maxSurfaceCubemapLayered, surfaceAlignment, concurrentKernels, ECCEnabled, pciBusID,
        pciDeviceID, pciDomainID, tccDriver, asyncEngineCount, unifiedAddressing, memoryBusWidth,
        l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor,
        streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported,
        sharedMemPerMultiprocessor, regsPerMultiprocessor, managedMemory, isMultiGpuBoard,
        multiGpuBoardGroupID, hostNativeAtomicSupported, pageableMemoryAccess,
        concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
        cooperativeLaunch, sharedMemPerBlockOptin, pageableMemoryAccessUsesHostPageTables,
        directManagedMemAccessFromHost, maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize,
        reservedSharedMemPerBlock, hostRegisterSupported, sparseCudaArraySupported,
        hostRegisterReadOnlySupported, timelineSemaphoreInteropSupported, memoryPoolsSupported,
        gpuDirectRDMASupported, gpuDirectRDMAFlushWritesOptions, gpuDirectRDMAWritesOrdering,
        memoryPoolSupportedHandleTypes, deferredMappingCudaArraySupported, ipcEventSupported,
        clusterLaunch, unifiedFunctionPointers, deviceNumaConfig, deviceNumaId, mpsEnabled,
        hostNumaId, gpuPciDeviceID, gpuPciSubsystemID, hostNumaMultinodeIpcSupported, reserved
        }
        "cudaFuncAttributes" => cudaFuncAttributes {
        sharedSizeBytes, constSizeBytes, localSizeBytes, maxThreadsPerBlock, numRegs, ptxVersion,
        binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes, preferredShmemCarveout,
        clusterDimMustBeSet, requiredClusterWidth, requiredClusterHeight, requiredClusterDepth,
        clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved
        }
        "cudaPointerAttributes" => cudaPointerAttributes { r#type, device, devicePointer, hostPointer, reserved }
        "dim3" => Dim3 { x, y, z }
        "cudaLaunchAttribute_st" => cudaLaunchAttribute { id, pad, val }
        "cudaLaunchConfig_st" => cudaLaunchConfig_t {
            gridDim, blockDim, dynamicSmemBytes, stream, attrs, numAttrs
        }
        "cudaKernelNodeParams" => cudaKernelNodeParams {
            func, gridDim, blockDim, sharedMemBytes, kernelParams, extra
        }
        "cudaMemPoolProps" => cudaMemPoolProps {
            allocType, handleTypes, location, win32SecurityAttributes, maxSize, usage, reserved
        }
        "cudaMemAllocNodeParams" => cudaMemAllocNodeParams {
            poolProps, accessDescs, accessDescCount, bytesize, dptr
        }
        "cudaGraphNodeParams" => cudaGraphNodeParams { r#type, reserved0, reserved1, reserved2 }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let include = root.join(".deps/cuda/nvidia/cu13/include");
    assert!(
        include.join("cuda_runtime_api.h").is_file(),
        "run scripts/deps/cuda_nvcc.sh first"
    );
    let dir = root.join("target/cudart");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("abi_layout.c");
    let program = format!(
        "#include <stddef.h>\n#include <stdio.h>\n#include <cuda_runtime_api.h>\nint main(void) {{\n{body}    return 0;\n}}\n"
    );
    std::fs::write(&source, program).unwrap();
    let binary = dir.join("abi_layout");
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg("-I")
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .status()
        .unwrap();
    assert!(status.success(), "compiling {}", source.display());
    let output = Command::new(&binary).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let c: BTreeMap<String, usize> = text
        .lines()
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').unwrap();
            (key.to_string(), value.parse().unwrap())
        })
        .collect();
    assert_eq!(c.len(), rust.len(), "every field printed once");
    let mismatches: Vec<_> = rust
        .iter()
        .filter(|(key, value)| c.get(*key) != Some(value))
        .map(|(key, value)| format!("{key}: Rust {value}, C {:?}", c.get(key)))
        .collect();
    assert!(mismatches.is_empty(), "layout mismatches: {mismatches:#?}");
}
