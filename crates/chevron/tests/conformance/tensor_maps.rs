//! TMA descriptors ([`chevron::Device::encode_tensor_map`]): encoded by the CUDA driver
//! into device memory on CUDA GPUs of compute capability 9.0 or later, an error elsewhere.

use chevron::backend::TiledTensorMap;
use chevron::{BackendKind, Buffer, Device, Error};

use crate::harness::{cuda_devices, on_every_device};

/// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32`.
const FLOAT32: u32 = 7;

/// A 64×8 f32 matrix (64 rows of 8) read in boxes of 4 rows of 8, innermost dimension first.
fn matrix_map(data: &Buffer<f32>) -> TiledTensorMap {
    TiledTensorMap {
        data_type: FLOAT32,
        global_address: data.device_ptr(),
        global_dim: vec![8, 64],
        global_strides: vec![8 * 4],
        box_dim: vec![8, 4],
        element_strides: vec![1, 1],
        interleave: 0,
        swizzle: 0,
        l2_promotion: 0,
        oob_fill: 0,
    }
}

#[test]
fn other_devices_report_that_tensor_maps_need_a_cuda_gpu() {
    on_every_device(|device| {
        if device.backend() == BackendKind::Cuda {
            return Ok(());
        }
        let data = Buffer::<f32>::zeroed(device, 64 * 8)?;
        let err = device.encode_tensor_map(&matrix_map(&data)).unwrap_err();
        assert!(matches!(err, Error::InvalidValue { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("TMA descriptors (tensor maps) are not supported on")
                && text.contains(device.label()),
            "{text}"
        );
        Ok(())
    });
}

fn sm90(device: &Device) -> bool {
    device.compute_capability().0 >= 9
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_tensor_map_is_encoded_into_128_bytes_of_device_memory() {
    for device in cuda_devices() {
        if !sm90(&device) {
            continue;
        }
        let data = Buffer::<f32>::zeroed(&device, 64 * 8).unwrap();
        let map = device.encode_tensor_map(&matrix_map(&data)).unwrap();
        let (base, size) = device
            .allocation_of(map)
            .expect("the descriptor is device memory");
        assert_eq!((base, size), (map, 128), "on {device}");

        // The driver rejects a misaligned global stride (it must be a multiple of 16 bytes).
        let mut bad = matrix_map(&data);
        bad.global_strides = vec![12];
        let err = device.encode_tensor_map(&bad).unwrap_err();
        assert!(err.to_string().contains("cuTensorMapEncodeTiled"), "{err}");
    }
}
