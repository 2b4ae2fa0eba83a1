//! Device memory: allocate, copy in and out, fill, copy between buffers on a stream.

use chevron::{Buffer, Runtime};

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;

    let squares: Vec<u32> = (0..8).map(|i| i * i).collect();
    let a = Buffer::from_slice(device, &squares)?;
    let b = Buffer::<u32>::zeroed(device, 8)?;
    println!("{a:?} holds {:?}", a.to_vec()?);

    let stream = device.create_stream()?;
    stream.copy_buffer(&b, &a)?;
    stream.fill(&a, 7)?;
    let mut back = vec![0u32; 8];
    stream.copy_to_host(&mut back, &b)?;
    println!("copied: {back:?}; a is now {:?}", a.to_vec()?);
    Ok(())
}
