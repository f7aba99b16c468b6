// Benchmarks of emmansun/gmsm through its public API, at the sizes of `shangmi speed`'s
// table cells, for the rows gmsm's own benchmarks do not have (8 KiB ECB, CMAC, CBC
// decryption of short messages, XTS at 8 KiB, GCM at 16 B to 16 KiB), and SM2 with the
// same work as our rows (signing and verifying a message with the default ID, so Z_A and
// SM3 included; gmsm's own Sign_SM2/Verify_SM2 take a prepared digest). Names are
// "row/bytes" (SM2: "row") with our rows' names, so run.sh pairs them with `shangmi speed`.
// SM9 does what our rows do: a 32-byte message signed by "Alice" and verified against a
// reused master public key, 32 bytes encrypted to "Bob" (KDF/XOR mode) and decrypted.
package peers

import (
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/emmansun/gmsm/cbcmac"
	smcipher "github.com/emmansun/gmsm/cipher"
	"github.com/emmansun/gmsm/sm2"
	"github.com/emmansun/gmsm/sm3"
	"github.com/emmansun/gmsm/sm4"
	"github.com/emmansun/gmsm/sm9"
	"github.com/emmansun/gmsm/zuc"
)

var key = []byte("0123456789abcdef")

// must returns v, or panics on err (which fails the benchmark): for the setup of the
// public-key benchmarks.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func block(b *testing.B) cipher.Block {
	c, err := sm4.NewCipher(key)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// op times f as one operation per iteration (op/s rows).
func op(b *testing.B, name string, f func(b *testing.B)) {
	b.Run(name, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			f(b)
		}
	})
}

// run times f over a buffer of each size, throughput in bytes.
func run(b *testing.B, row string, sizes []int, f func(b *testing.B, buf []byte)) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("%s/%d", row, n), func(b *testing.B) {
			buf := make([]byte, n)
			b.SetBytes(int64(n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f(b, buf)
			}
		})
	}
}

func BenchmarkSM4(b *testing.B) {
	c := block(b)
	iv := make([]byte, 16)
	run(b, "sm4-ecb-enc", []int{8192}, func(b *testing.B, buf []byte) {
		smcipher.NewECBEncrypter(c).CryptBlocks(buf, buf)
	})
	run(b, "sm4-cbc-enc", []int{1024, 8192}, func(b *testing.B, buf []byte) {
		cipher.NewCBCEncrypter(c, iv).CryptBlocks(buf, buf)
	})
	run(b, "sm4-cbc-dec", []int{64, 256, 1024, 8192}, func(b *testing.B, buf []byte) {
		cipher.NewCBCDecrypter(c, iv).CryptBlocks(buf, buf)
	})
	run(b, "sm4-ctr", []int{8192}, func(b *testing.B, buf []byte) {
		cipher.NewCTR(c, iv).XORKeyStream(buf, buf)
	})
	gcm, err := cipher.NewGCM(c)
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, 12)
	run(b, "sm4-gcm-seal", []int{16, 64, 1024, 8192, 16384}, func(b *testing.B, buf []byte) {
		gcm.Seal(buf[:0], nonce, buf, nil)
	})
	sealed := gcm.Seal(nil, nonce, make([]byte, 8192), nil)
	run(b, "sm4-gcm-open", []int{8192}, func(b *testing.B, buf []byte) {
		if _, err := gcm.Open(buf[:0], nonce, sealed, nil); err != nil {
			b.Fatal(err)
		}
	})
	ccm, err := smcipher.NewCCM(c)
	if err != nil {
		b.Fatal(err)
	}
	run(b, "sm4-ccm-seal", []int{8192}, func(b *testing.B, buf []byte) {
		ccm.Seal(buf[:0], nonce, buf, nil)
	})
	run(b, "sm4-xts-enc", []int{8192}, func(b *testing.B, buf []byte) {
		x, err := smcipher.NewXTSEncrypterWithSector(sm4.NewCipher, key, key, 7)
		if err != nil {
			b.Fatal(err)
		}
		x.CryptBlocks(buf, buf)
	})
	run(b, "sm4-cmac", []int{1024, 8192}, func(b *testing.B, buf []byte) {
		m := cbcmac.NewCMAC(c, 16)
		m.Write(buf)
		m.Sum(nil)
	})
}

// ZUC as our rows of the same names run it: key and IV set up per message (a bearer's
// packet), then the keystream applied or the MAC computed over whole bytes.
func BenchmarkZUC(b *testing.B) {
	k16, iv16 := make([]byte, 16), make([]byte, 16)
	k32, iv23 := make([]byte, 32), make([]byte, 23) // gmsm takes the 23-byte packed IV
	sizes := []int{64, 1024, 8192}
	run(b, "zuc128", sizes, func(b *testing.B, buf []byte) {
		s, err := zuc.NewCipher(k16, iv16)
		if err != nil {
			b.Fatal(err)
		}
		s.XORKeyStream(buf, buf)
	})
	run(b, "zuc256", sizes, func(b *testing.B, buf []byte) {
		s, err := zuc.NewCipher(k32, iv23)
		if err != nil {
			b.Fatal(err)
		}
		s.XORKeyStream(buf, buf)
	})
	run(b, "eea3", sizes, func(b *testing.B, buf []byte) {
		s, err := zuc.NewEEACipher(k16, 0x1234, 5, 1)
		if err != nil {
			b.Fatal(err)
		}
		s.XORKeyStream(buf, buf)
	})
	run(b, "eia3", sizes, func(b *testing.B, buf []byte) {
		h, err := zuc.NewEIAHash(k16, 0x1234, 5, 1)
		if err != nil {
			b.Fatal(err)
		}
		h.Write(buf)
		h.Sum(nil)
	})
	run(b, "zuc256-mac128", sizes, func(b *testing.B, buf []byte) {
		h, err := zuc.NewHash256(k32, iv23, 16)
		if err != nil {
			b.Fatal(err)
		}
		h.Write(buf)
		h.Sum(nil)
	})
}

// The GB/T 17964-2021 modes BC, OFBNLF, HCTR and GB/T 15852.1-2020 MACs (padding method 2
// where the algorithm takes one), as the rows of the same names in `shangmi speed`.
func BenchmarkGB(b *testing.B) {
	c := block(b)
	iv := make([]byte, 16)
	run(b, "sm4-bc-enc", []int{8192}, func(b *testing.B, buf []byte) {
		smcipher.NewBCEncrypter(c, iv).CryptBlocks(buf, buf)
	})
	run(b, "sm4-bc-dec", []int{8192}, func(b *testing.B, buf []byte) {
		smcipher.NewBCDecrypter(c, iv).CryptBlocks(buf, buf)
	})
	run(b, "sm4-ofbnlf-enc", []int{8192}, func(b *testing.B, buf []byte) {
		x, err := smcipher.NewOFBNLFEncrypter(sm4.NewCipher, key, iv)
		if err != nil {
			b.Fatal(err)
		}
		x.CryptBlocks(buf, buf)
	})
	hctr, err := smcipher.NewHCTR(c, iv, key)
	if err != nil {
		b.Fatal(err)
	}
	run(b, "sm4-hctr-enc", []int{1024, 8192}, func(b *testing.B, buf []byte) {
		hctr.EncryptBytes(buf, buf)
	})
	run(b, "sm4-cbcmac", []int{8192}, func(b *testing.B, buf []byte) {
		cbcmac.NewCBCMAC(c, 16).MAC(buf)
	})
	run(b, "sm4-emac", []int{8192}, func(b *testing.B, buf []byte) {
		cbcmac.NewEMAC(sm4.NewCipher, key, key, 16).MAC(buf)
	})
	run(b, "sm4-lmac", []int{8192}, func(b *testing.B, buf []byte) {
		cbcmac.NewLMAC(sm4.NewCipher, key, 16).MAC(buf)
	})
	run(b, "sm4-trcbc", []int{8192}, func(b *testing.B, buf []byte) {
		cbcmac.NewTRCBCMAC(c, 8).MAC(buf)
	})
	run(b, "sm4-cbcr", []int{8192}, func(b *testing.B, buf []byte) {
		cbcmac.NewCBCRMAC(c, 16).MAC(buf)
	})
}

func BenchmarkSM3(b *testing.B) {
	run(b, "sm3", []int{1024, 8192}, func(b *testing.B, buf []byte) {
		sm3.Sum(buf)
	})
}

func BenchmarkSM2(b *testing.B) {
	msg := []byte("shangmi speed: the message signed")
	priv := must(sm2.GenerateKey(rand.Reader))
	sig := must(priv.SignWithSM2(rand.Reader, nil, msg))
	op(b, "sm2-keygen", func(b *testing.B) {
		if _, err := sm2.GenerateKey(rand.Reader); err != nil {
			b.Fatal(err)
		}
	})
	op(b, "sm2-sign", func(b *testing.B) {
		if _, err := priv.SignWithSM2(rand.Reader, nil, msg); err != nil {
			b.Fatal(err)
		}
	})
	op(b, "sm2-verify", func(b *testing.B) {
		if !sm2.VerifyASN1WithSM2(&priv.PublicKey, nil, msg, sig) {
			b.Fatal("verify failed")
		}
	})
	op(b, "sm2-encrypt-32", func(b *testing.B) {
		if _, err := sm2.Encrypt(rand.Reader, &priv.PublicKey, msg[:32], nil); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkSM9(b *testing.B) {
	msg := make([]byte, 32)
	for i := range msg {
		msg[i] = 0x5A
	}
	signMaster := must(sm9.GenerateSignMasterKey(rand.Reader))
	alice := must(signMaster.GenerateUserKey([]byte("Alice"), 0x01))
	sig := must(sm9.SignASN1(rand.Reader, alice, msg)) // also fills gmsm's precomputed tables
	encMaster := must(sm9.GenerateEncryptMasterKey(rand.Reader))
	bob := must(encMaster.GenerateUserKey([]byte("Bob"), 0x03))
	ct := must(sm9.Encrypt(rand.Reader, encMaster.PublicKey(), []byte("Bob"), 0x03, msg, nil))
	op(b, "sm9-sign", func(b *testing.B) {
		if _, err := sm9.SignASN1(rand.Reader, alice, msg); err != nil {
			b.Fatal(err)
		}
	})
	op(b, "sm9-verify", func(b *testing.B) {
		if !sm9.VerifyASN1(signMaster.PublicKey(), []byte("Alice"), 0x01, msg, sig) {
			b.Fatal("verify failed")
		}
	})
	op(b, "sm9-encrypt-32", func(b *testing.B) {
		if _, err := sm9.Encrypt(rand.Reader, encMaster.PublicKey(), []byte("Bob"), 0x03, msg, nil); err != nil {
			b.Fatal(err)
		}
	})
	op(b, "sm9-decrypt-32", func(b *testing.B) {
		if _, err := sm9.Decrypt(bob, []byte("Bob"), ct, nil); err != nil {
			b.Fatal(err)
		}
	})
}
