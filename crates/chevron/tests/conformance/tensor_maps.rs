//! TMA descriptors ([`chevron::Device::encode_tensor_map`]): encoded into device memory by
//! the CPU device (its interpreter's layout) and by the CUDA driver on GPUs of compute
//! capability 9.0 or later, an error elsewhere.

use chevron::backend::TiledTensorMap;
use chevron::{BackendKind, Buffer, Device, Error};

use crate::harness::{cuda_devices, on_every_device, on_every_device_and_noop};

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
    on_every_device_and_noop(|device| {
        if matches!(device.backend(), BackendKind::Cuda | BackendKind::Cpu) {
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

#[test]
fn the_cpu_device_encodes_tensor_maps_into_device_memory() {
    on_every_device(|device| {
        if device.backend() != BackendKind::Cpu {
            return Ok(());
        }
        let data = Buffer::<f32>::zeroed(device, 64 * 8)?;
        let map = device.encode_tensor_map(&matrix_map(&data))?;
        assert_eq!(device.allocation_of(map), Some((map, 128)));
        let descriptor = device.tensor_map_descriptor(&matrix_map(&data))?;
        let mut stored = [0u8; 128];
        device.create_stream()?.copy_to_host_at(&mut stored, map)?;
        assert_eq!(stored, descriptor);
        // CUDA's rules: a global stride must be a multiple of 16 bytes.
        let mut bad = matrix_map(&data);
        bad.global_strides = vec![12];
        let err = device.encode_tensor_map(&bad).unwrap_err();
        assert!(matches!(err, Error::InvalidValue { .. }), "{err}");
        assert!(err.to_string().contains("multiple of 16"), "{err}");
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
