//! Orders work across streams with tokens: a launch may depend on any number of them.

use chevron::{Buffer, LaunchConfig, Module, Runtime, Token};

const PTX: &str = include_str!("../tests/data/basics.ptx");

fn main() -> chevron::Result<()> {
    let runtime = Runtime::new()?;
    let device = runtime.default_device()?;
    let module = Module::from_ptx(device, PTX)?;
    let (fill, copy_plus) = (module.kernel("fill_index")?, module.kernel("copy_plus")?);
    let n = 1u32 << 16;
    let config = LaunchConfig::for_elements(n as usize, 256);

    // Four producers on four streams.
    let streams: Vec<_> = (0..4)
        .map(|_| device.create_stream())
        .collect::<Result<_, _>>()?;
    let inputs: Vec<Buffer<u32>> = (0..4)
        .map(|_| Buffer::new(device, n as usize))
        .collect::<Result<_, _>>()?;
    let produced: Vec<Token> = streams
        .iter()
        .zip(&inputs)
        .map(|(s, b)| fill.launch(s, config, (b, n)))
        .collect::<Result<_, _>>()?;

    // One consumer that waits for all of them (one event wait each; none for its own stream).
    let out = Buffer::<u32>::new(device, n as usize)?;
    let deps: Vec<&Token> = produced.iter().collect();
    let done = copy_plus.launch_after(&streams[0], config, (&inputs[3], &out, 1u32, n), &deps)?;
    done.wait()?;
    println!("out[..4] = {:?}", &out.to_vec()?[..4]);
    Ok(())
}
