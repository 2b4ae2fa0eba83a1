//! CUDA's error codes as both of its APIs name them: one row per numeric code, with the
//! runtime's `cudaError_t` name, the driver's `CUresult` name and the one text both APIs give it
//! (`cudaGetErrorString`, `cuGetErrorString`), as CUDA 13.0 defines them. A name is absent
//! (`-`) where chevron does not return the code through that API; the runtime's
//! [`describe`](super::describe) and the driver library's `describe` read this table.

use std::ffi::c_int;

/// One of CUDA's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    /// The numeric value (the same in both APIs).
    pub value: c_int,
    /// The `cudaError_t` name, if chevron's runtime returns the code.
    pub runtime: Option<&'static str>,
    /// The `CUresult` name, if chevron's driver API returns the code.
    pub driver: Option<&'static str>,
    /// What the code means (`cudaGetErrorString`, `cuGetErrorString`).
    pub text: &'static str,
}

/// A name of the table, or `-` for none.
macro_rules! name {
    (-) => {
        None
    };
    ($name:ident) => {
        Some(stringify!($name))
    };
}

/// Rows `VALUE RUNTIME_NAME DRIVER_NAME "TEXT";`.
macro_rules! codes {
    ($($value:literal $runtime:tt $driver:tt $text:literal;)*) => {
        &[$(ErrorCode {
            value: $value,
            runtime: name!($runtime),
            driver: name!($driver),
            text: $text,
        }),*]
    };
}

/// The codes chevron returns, through either API, in increasing order.
pub const CODES: &[ErrorCode] = codes! {
    0 cudaSuccess CUDA_SUCCESS "no error";
    1 cudaErrorInvalidValue CUDA_ERROR_INVALID_VALUE "invalid argument";
    2 cudaErrorMemoryAllocation CUDA_ERROR_OUT_OF_MEMORY "out of memory";
    3 cudaErrorInitializationError CUDA_ERROR_NOT_INITIALIZED "initialization error";
    4 cudaErrorCudartUnloading CUDA_ERROR_DEINITIALIZED "driver shutting down";
    9 cudaErrorInvalidConfiguration - "invalid configuration argument";
    12 cudaErrorInvalidPitchValue - "invalid pitch argument";
    13 cudaErrorInvalidSymbol - "invalid device symbol";
    16 cudaErrorInvalidHostPointer - "invalid host pointer";
    17 cudaErrorInvalidDevicePointer - "invalid device pointer";
    20 cudaErrorInvalidChannelDescriptor - "invalid channel descriptor";
    21 cudaErrorInvalidMemcpyDirection - "invalid copy direction for memcpy";
    52 cudaErrorMissingConfiguration - "__global__ function call is not configured";
    65 cudaErrorLaunchMaxDepthExceeded - "launch would exceed maximum depth of nested launches";
    69 cudaErrorLaunchPendingCountExceeded - "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount";
    98 cudaErrorInvalidDeviceFunction - "invalid device function";
    100 cudaErrorNoDevice CUDA_ERROR_NO_DEVICE "no CUDA-capable device is detected";
    101 cudaErrorInvalidDevice CUDA_ERROR_INVALID_DEVICE "invalid device ordinal";
    200 cudaErrorInvalidKernelImage CUDA_ERROR_INVALID_IMAGE "device kernel image is invalid";
    201 cudaErrorDeviceUninitialized CUDA_ERROR_INVALID_CONTEXT "invalid device context";
    209 cudaErrorNoKernelImageForDevice CUDA_ERROR_NO_BINARY_FOR_GPU
        "no kernel image is available for execution on the device";
    215 cudaErrorUnsupportedLimit CUDA_ERROR_UNSUPPORTED_LIMIT "unsupported limit";
    217 cudaErrorPeerAccessUnsupported - "peer access is not supported between these two devices";
    218 cudaErrorInvalidPtx CUDA_ERROR_INVALID_PTX "a PTX JIT compilation failed";
    301 - CUDA_ERROR_FILE_NOT_FOUND "file not found";
    400 cudaErrorInvalidResourceHandle CUDA_ERROR_INVALID_HANDLE "invalid resource handle";
    401 cudaErrorIllegalState CUDA_ERROR_ILLEGAL_STATE
        "the operation cannot be performed in the present state";
    500 cudaErrorSymbolNotFound CUDA_ERROR_NOT_FOUND "named symbol not found";
    600 cudaErrorNotReady CUDA_ERROR_NOT_READY "device not ready";
    700 cudaErrorIllegalAddress CUDA_ERROR_ILLEGAL_ADDRESS
        "an illegal memory access was encountered";
    701 cudaErrorLaunchOutOfResources CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
        "too many resources requested for launch";
    702 cudaErrorLaunchTimeout CUDA_ERROR_LAUNCH_TIMEOUT "the launch timed out and was terminated";
    705 cudaErrorPeerAccessNotEnabled CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
        "peer access has not been enabled";
    710 cudaErrorAssert CUDA_ERROR_ASSERT "device-side assert triggered";
    712 cudaErrorHostMemoryAlreadyRegistered CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        "part or all of the requested memory range is already mapped";
    713 cudaErrorHostMemoryNotRegistered CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        "pointer does not correspond to a registered memory region";
    714 cudaErrorHardwareStackError CUDA_ERROR_HARDWARE_STACK_ERROR "hardware stack error";
    715 cudaErrorIllegalInstruction CUDA_ERROR_ILLEGAL_INSTRUCTION
        "an illegal instruction was encountered";
    716 cudaErrorMisalignedAddress CUDA_ERROR_MISALIGNED_ADDRESS "misaligned address";
    717 cudaErrorInvalidAddressSpace CUDA_ERROR_INVALID_ADDRESS_SPACE
        "operation not supported on global/shared address space";
    718 cudaErrorInvalidPc CUDA_ERROR_INVALID_PC "invalid program counter";
    719 cudaErrorLaunchFailure CUDA_ERROR_LAUNCH_FAILED "unspecified launch failure";
    720 cudaErrorCooperativeLaunchTooLarge - "too many blocks in cooperative launch";
    801 cudaErrorNotSupported CUDA_ERROR_NOT_SUPPORTED "operation not supported";
    900 cudaErrorStreamCaptureUnsupported CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
        "operation not permitted when stream is capturing";
    901 cudaErrorStreamCaptureInvalidated CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        "operation failed due to a previous error during capture";
    902 cudaErrorStreamCaptureMerge -
        "operation would result in a merge of separate capture sequences";
    903 cudaErrorStreamCaptureUnmatched - "capture was not ended in the same stream as it began";
    904 cudaErrorStreamCaptureUnjoined - "capturing stream has unjoined work";
    905 cudaErrorStreamCaptureIsolation - "dependency created on uncaptured work in another stream";
    910 cudaErrorGraphExecUpdateFailure -
        "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update";
    999 cudaErrorUnknown CUDA_ERROR_UNKNOWN "unknown error";
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_increase_and_every_row_has_a_name() {
        assert!(CODES.windows(2).all(|pair| pair[0].value < pair[1].value));
        assert!(CODES
            .iter()
            .all(|code| code.runtime.is_some() || code.driver.is_some()));
    }

    #[test]
    fn each_api_names_its_codes_in_its_own_style() {
        for code in CODES {
            assert!(code.runtime.is_none_or(|name| name.starts_with("cuda")));
            assert!(code.driver.is_none_or(|name| name.starts_with("CUDA_")));
        }
    }
}
