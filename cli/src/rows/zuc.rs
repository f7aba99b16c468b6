//! ZUC rows: the ZUC-128 and ZUC-256 keystreams (`cipher` traits), 128-EEA3, 128-EIA3 and
//! the 128-bit ZUC-256 MAC, each on the table's ZUC backend (the best one unless
//! `--backend` names another; one key and IV set up per call, as a bearer's packet is); and
//! `eea3-many8`, eight packets of the cell's size per call through
//! `shangmi_zuc::eea3_many_on` on the table's many-stream backend (eight bearers at once),
//! counted as eight times the cell.

use shangmi_zuc::{
    Backend, Eea3Packet, Eia3, ManyEngine, Zuc128Core, Zuc256Core, Zuc256Mac128,
    cipher::{StreamCipher, StreamCipherCoreWrapper},
    digest::Mac,
};

use super::Row;

/// The ZUC rows on `backend` (single streams) and `many` (eight streams); the speed
/// command's parser checked that both run here.
pub fn rows(backend: Backend, many: ManyEngine) -> Vec<Row> {
    let (k16, iv16) = ([0x3du8; 16], [0x84u8; 16]);
    let (k32, iv25) = ([0x3du8; 32], [0x04u8; 25]);
    let zuc128 = move |key: &[u8; 16], iv: &[u8; 16]| {
        let core = Zuc128Core::with_backend(&(*key).into(), &(*iv).into(), backend);
        StreamCipherCoreWrapper::from_core(core.expect("an available backend"))
    };
    vec![
        Row::new("zuc128", 1, move |buf| {
            zuc128(&k16, &iv16).apply_keystream(buf);
        }),
        Row::new("zuc256", 1, move |buf| {
            let core = Zuc256Core::with_backend(&k32.into(), &iv25.into(), backend);
            StreamCipherCoreWrapper::from_core(core.expect("an available backend"))
                .apply_keystream(buf);
        }),
        Row::new("eea3", 1, move |buf| {
            // `shangmi_zuc::eea3` on the table's backend: the IV from COUNT, BEARER and
            // DIRECTION, then the keystream (whole bytes: no final bits to clear).
            let iv = shangmi_zuc::eea3_iv(0x1234, 5, 1).expect("valid parameters");
            zuc128(&k16, &iv).apply_keystream(buf);
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
                shangmi_zuc::eea3_many_on(&mut packets, many).expect("valid parameters");
            }
        })
        .copies(8),
        Row::new("eia3", 1, move |buf| {
            let iv = shangmi_zuc::eia3_iv(0x1234, 5, 1).expect("valid parameters");
            let mac = Eia3::with_backend(&k16.into(), &iv.into(), backend);
            let mac = mac.expect("an available backend");
            std::hint::black_box(mac.chain_update(&*buf).finalize());
        }),
        Row::new("zuc256-mac128", 1, move |buf| {
            let mac = Zuc256Mac128::with_backend(&k32.into(), &iv25.into(), backend);
            let mac = mac.expect("an available backend");
            std::hint::black_box(mac.chain_update(&*buf).finalize());
        }),
    ]
}
