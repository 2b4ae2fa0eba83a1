//! Buffers: allocation, copies in both directions, fills, device-to-device copies, errors.

use chevron::{Buffer, Error};

use crate::harness::on_every_device_and_noop;

#[test]
fn data_round_trips_through_device_memory() {
    on_every_device_and_noop(|device| {
        let data: Vec<u32> = (0..100_000).map(|i| i * 7 + 3).collect();
        let buffer = Buffer::from_slice(device, &data)?;
        assert_eq!(buffer.len(), data.len());
        assert_eq!(buffer.size_bytes(), 400_000);
        assert!(buffer.device().same_device(device));
        assert_eq!(buffer.to_vec()?, data);
        let other: Vec<u32> = data.iter().map(|v| v ^ 0xffff).collect();
        buffer.copy_from_host(&other)?;
        let mut back = vec![0u32; data.len()];
        buffer.copy_to_host(&mut back)?;
        assert_eq!(back, other);
        Ok(())
    });
}

#[test]
fn fills_write_every_element() {
    on_every_device_and_noop(|device| {
        let bytes = Buffer::<u8>::new(device, 1001)?;
        bytes.fill(0xab)?;
        assert!(bytes.to_vec()?.iter().all(|&b| b == 0xab));
        let halves = Buffer::<u16>::new(device, 333)?;
        halves.fill(0x1234)?;
        assert!(halves.to_vec()?.iter().all(|&h| h == 0x1234));
        let floats = Buffer::<f32>::new(device, 257)?;
        floats.fill(1.5)?;
        assert!(floats.to_vec()?.iter().all(|&f| f == 1.5));
        let wide = Buffer::<u64>::from_slice(device, &[u64::MAX; 9])?;
        wide.fill_zero()?;
        assert_eq!(wide.to_vec()?, vec![0u64; 9]);
        assert_eq!(Buffer::<f64>::zeroed(device, 5)?.to_vec()?, vec![0.0; 5]);
        Ok(())
    });
}

#[test]
fn a_fill_that_no_memset_can_express_is_an_error() {
    on_every_device_and_noop(|device| {
        let buffer = Buffer::<f64>::new(device, 4)?;
        match buffer.fill(1.0) {
            Err(Error::InvalidValue { call, .. }) => assert_eq!(call, "Stream::fill"),
            other => panic!("expected InvalidValue, got {other:?}"),
        }
        Ok(())
    });
}

#[test]
fn buffers_copy_on_the_device_in_stream_order() {
    on_every_device_and_noop(|device| {
        let stream = device.create_stream()?;
        let src = Buffer::<i32>::new(device, 64)?;
        let dst = Buffer::<i32>::zeroed(device, 64)?;
        let data: Vec<i32> = (0..64).map(|i| -i).collect();
        stream.copy_to_device(&src, &data)?;
        stream.copy_buffer(&dst, &src)?;
        stream.fill(&src, 0)?;
        let mut back = vec![0i32; 64];
        stream.copy_to_host(&mut back, &dst)?;
        assert_eq!(back, data);
        stream.copy_to_host(&mut back, &src)?;
        assert_eq!(back, vec![0; 64]);
        Ok(())
    });
}

#[test]
fn length_mismatches_are_errors_naming_the_call() {
    on_every_device_and_noop(|device| {
        let buffer = Buffer::<u32>::new(device, 8)?;
        let err = buffer.copy_from_host(&[1, 2, 3]).unwrap_err();
        assert!(
            err.to_string().contains("Stream::copy_to_device") && err.to_string().contains('8'),
            "{err}"
        );
        let mut short = [0u32; 2];
        assert!(buffer.copy_to_host(&mut short).is_err());
        let other = Buffer::<u32>::new(device, 9)?;
        assert!(device
            .default_stream()?
            .copy_buffer(&other, &buffer)
            .is_err());
        Ok(())
    });
}

#[test]
fn empty_buffers_need_no_memory() {
    on_every_device_and_noop(|device| {
        let empty = Buffer::<f32>::new(device, 0)?;
        assert!(empty.is_empty());
        assert_eq!(empty.device_ptr(), 0);
        assert_eq!(empty.to_vec()?, Vec::<f32>::new());
        empty.copy_from_host(&[])?;
        empty.fill(3.0)?;
        Ok(())
    });
}

#[test]
fn live_allocations_do_not_overlap() {
    on_every_device_and_noop(|device| {
        let buffers: Vec<Buffer<u8>> = (1..20)
            .map(|i| Buffer::new(device, i * 100))
            .collect::<chevron::Result<_>>()?;
        let mut ranges: Vec<(u64, u64)> = buffers
            .iter()
            .map(|b| (b.device_ptr(), b.device_ptr() + b.size_bytes()))
            .collect();
        ranges.sort();
        assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0), "{ranges:?}");
        assert!(ranges.iter().all(|r| r.0 != 0));
        Ok(())
    });
}

#[test]
fn device_addresses_are_told_from_host_addresses() {
    on_every_device_and_noop(|device| {
        let buffer = Buffer::<u32>::new(device, 64)?;
        let base = buffer.device_ptr();
        assert!(device.is_device_address(base), "{base:#x}");
        assert!(device.is_device_address(base + 255), "{base:#x} + 255");
        let heap = vec![0u32; 64];
        assert!(!device.is_device_address(heap.as_ptr() as u64));
        let stack = 0u64;
        assert!(!device.is_device_address(&stack as *const u64 as u64));
        Ok(())
    });
}
