//! ZUC rows: the ZUC-128 and ZUC-256 keystreams (`cipher` traits), 128-EEA3, 128-EIA3 and
//! the 128-bit ZUC-256 MAC, each on the engine `shangmi_zuc::Backend::detect` picks (one
//! key and IV set up per call, as a bearer's packet is); and `eea3-many8`, eight packets of
//! the cell's size per call through `shangmi_zuc::eea3_many` (eight bearers at once),
//! counted as eight times the cell.

use shangmi_zuc::{
    Eea3Packet, Eia3, Zuc128, Zuc256, Zuc256Mac128,
    cipher::{KeyIvInit, StreamCipher},
    digest::Mac,
};

use super::Row;

/// The ZUC rows.
pub fn rows() -> Vec<Row> {
    let (k16, iv16) = ([0x3du8; 16], [0x84u8; 16]);
    let (k32, iv25) = ([0x3du8; 32], [0x04u8; 25]);
    vec![
        Row::new("zuc128", 1, move |buf| {
            Zuc128::new(&k16.into(), &iv16.into()).apply_keystream(buf);
        }),
        Row::new("zuc256", 1, move |buf| {
            Zuc256::new(&k32.into(), &iv25.into()).apply_keystream(buf);
        }),
        Row::new("eea3", 1, move |buf| {
            let bits = 8 * buf.len();
            shangmi_zuc::eea3(&k16, 0x1234, 5, 1, buf, bits).expect("valid parameters");
        }),
        Row::new("eea3-many8", 1, {
            let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); 8];
            move |buf| {
                let mut packets: Vec<Eea3Packet<'_>> = bufs
                    .iter_mut()
                    .enumerate()
                    .map(|(i, b)| {
                        b.resize(buf.len(), 0);
                        Eea3Packet {
                            ck: k16,
                            count: 0x1234,
                            bearer: i as u8,
                            direction: 1,
                            data: b,
                            bit_len: 8 * buf.len(),
                        }
                    })
                    .collect();
                shangmi_zuc::eea3_many(&mut packets).expect("valid parameters");
            }
        })
        .copies(8),
        Row::new("eia3", 1, move |buf| {
            let mac = Eia3::with_params(&k16, 0x1234, 5, 1).expect("valid parameters");
            std::hint::black_box(mac.chain_update(&*buf).finalize());
        }),
        Row::new("zuc256-mac128", 1, move |buf| {
            let mac = Zuc256Mac128::new(&k32.into(), &iv25.into());
            std::hint::black_box(mac.chain_update(&*buf).finalize());
        }),
    ]
}
