//! Several devices: tokens of one device as dependencies on another, and objects of one device
//! refused on another.

use chevron::{Buffer, Error, LaunchConfig};

use crate::harness::{basics, device_pairs};

const N: u32 = 1 << 14;

#[test]
fn a_token_of_one_device_orders_a_launch_on_another() {
    for (a, b) in device_pairs() {
        let (on_a, on_b) = (basics(&a).unwrap(), basics(&b).unwrap());
        let data_a = Buffer::<u32>::zeroed(&a, N as usize).unwrap();
        let data_b = Buffer::<u32>::zeroed(&b, N as usize).unwrap();
        let (stream_a, stream_b) = (a.create_stream().unwrap(), b.create_stream().unwrap());
        let config = LaunchConfig::for_elements(N as usize, 256);
        let add_a = on_a.kernel("add_one").unwrap();
        let mut last = None;
        for _ in 0..10 {
            last = Some(add_a.launch(&stream_a, config, (&data_a, N)).unwrap());
        }
        let produced = last.unwrap();
        let consumed = on_b
            .kernel("fill_index")
            .unwrap()
            .launch_after(&stream_b, config, (&data_b, N), &[&produced])
            .unwrap();
        consumed.wait().unwrap();
        assert!(
            produced.is_done().unwrap(),
            "{a} work not done after {b} work that waited for it"
        );
        assert_eq!(data_a.to_vec().unwrap()[0], 10);
        assert_eq!(data_b.to_vec().unwrap()[5], 5);
    }
}

#[test]
fn objects_of_one_device_are_refused_on_another() {
    for (a, b) in device_pairs() {
        let kernel_a = basics(&a).unwrap().kernel("add_one").unwrap();
        let buffer_a = Buffer::<u32>::new(&a, 4).unwrap();
        let buffer_b = Buffer::<u32>::new(&b, 4).unwrap();
        let stream_a = a.create_stream().unwrap();
        let stream_b = b.create_stream().unwrap();
        let config = LaunchConfig::new(1, 32);

        let err = kernel_a
            .launch(&stream_b, config, (&buffer_b, 4u32))
            .unwrap_err();
        assert!(err.to_string().contains(a.label()), "{err}");
        let err = kernel_a
            .launch(&stream_a, config, (&buffer_b, 4u32))
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::Argument {
                    parameter: Some(0),
                    ..
                }
            ),
            "{err}"
        );
        assert!(stream_b.copy_to_device(&buffer_a, &[1, 2, 3, 4]).is_err());
    }
}
