//go:build !noasm

#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func madd4FMA(t, v0, v1, v2, v3 *float64, n int, s0, s1, s2, s3 float64, first bool)
//
// t[i] = (first ? 0 : t[i]) + s0·v0[i] + s1·v1[i] + s2·v2[i] + s3·v3[i],
// each term a fused multiply-add, for i < n (AVX2 and FMA3).
TEXT ·madd4FMA(SB), NOSPLIT, $0-81
	MOVQ t+0(FP), DI
	MOVQ v0+8(FP), R8
	MOVQ v1+16(FP), R9
	MOVQ v2+24(FP), R10
	MOVQ v3+32(FP), R11
	MOVQ n+40(FP), CX
	VBROADCASTSD s0+48(FP), Y0
	VBROADCASTSD s1+56(FP), Y1
	VBROADCASTSD s2+64(FP), Y2
	VBROADCASTSD s3+72(FP), Y3
	MOVBQZX first+80(FP), AX

loop8:
	CMPQ CX, $8
	JLT  loop4
	TESTQ AX, AX
	JNZ  zero8
	VMOVUPD (DI), Y4
	VMOVUPD 32(DI), Y5
	JMP  fma8

zero8:
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5

fma8:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD 32(R8), Y0, Y5
	VFMADD231PD (R9), Y1, Y4
	VFMADD231PD 32(R9), Y1, Y5
	VFMADD231PD (R10), Y2, Y4
	VFMADD231PD 32(R10), Y2, Y5
	VFMADD231PD (R11), Y3, Y4
	VFMADD231PD 32(R11), Y3, Y5
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $8, CX
	JMP  loop8

loop4:
	CMPQ CX, $4
	JLT  tail
	TESTQ AX, AX
	JNZ  zero4
	VMOVUPD (DI), Y4
	JMP  fma4

zero4:
	VXORPD Y4, Y4, Y4

fma4:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD (R9), Y1, Y4
	VFMADD231PD (R10), Y2, Y4
	VFMADD231PD (R11), Y3, Y4
	VMOVUPD Y4, (DI)
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	SUBQ $4, CX

tail:
	TESTQ CX, CX
	JZ   done
	TESTQ AX, AX
	JNZ  zero1
	VMOVSD (DI), X4
	JMP  fma1

zero1:
	VXORPD X4, X4, X4

fma1:
	VFMADD231SD (R8), X0, X4
	VFMADD231SD (R9), X1, X4
	VFMADD231SD (R10), X2, X4
	VFMADD231SD (R11), X3, X4
	VMOVSD X4, (DI)
	ADDQ $8, DI
	ADDQ $8, R8
	ADDQ $8, R9
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	RET

// func madd1FMA(t, v *float64, n int, s float64, first bool)
//
// t[i] = (first ? 0 : t[i]) + s·v[i] for i < n (AVX2 and FMA3).
TEXT ·madd1FMA(SB), NOSPLIT, $0-33
	MOVQ t+0(FP), DI
	MOVQ v+8(FP), R8
	MOVQ n+16(FP), CX
	VBROADCASTSD s+24(FP), Y0
	MOVBQZX first+32(FP), AX

loop16:
	CMPQ CX, $16
	JLT  loop4
	TESTQ AX, AX
	JNZ  zero16
	VMOVUPD (DI), Y4
	VMOVUPD 32(DI), Y5
	VMOVUPD 64(DI), Y6
	VMOVUPD 96(DI), Y7
	JMP  fma16

zero16:
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

fma16:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD 32(R8), Y0, Y5
	VFMADD231PD 64(R8), Y0, Y6
	VFMADD231PD 96(R8), Y0, Y7
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	VMOVUPD Y6, 64(DI)
	VMOVUPD Y7, 96(DI)
	ADDQ $128, DI
	ADDQ $128, R8
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  tail
	TESTQ AX, AX
	JNZ  zero4
	VMOVUPD (DI), Y4
	JMP  fma4

zero4:
	VXORPD Y4, Y4, Y4

fma4:
	VFMADD231PD (R8), Y0, Y4
	VMOVUPD Y4, (DI)
	ADDQ $32, DI
	ADDQ $32, R8
	SUBQ $4, CX
	JMP  loop4

tail:
	TESTQ CX, CX
	JZ   done
	TESTQ AX, AX
	JNZ  zero1
	VMOVSD (DI), X4
	JMP  fma1

zero1:
	VXORPD X4, X4, X4

fma1:
	VFMADD231SD (R8), X0, X4
	VMOVSD X4, (DI)
	ADDQ $8, DI
	ADDQ $8, R8
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	RET

// func fwd4FMA(n int, cp *int, idx *int32, l4, r *float64)
//
// The forward pass L y = r of solve4 on an interleaved block: for each
// column j < n whose 4-vector r[4j:4j+4] is not all zero bits, and each
// entry q in [cp[j], cp[j+1]) of row i = idx[q],
// r[4i:4i+4] -= l4[4q:4q+4] ∘ r[4j:4j+4] (one fused multiply-add).
TEXT ·fwd4FMA(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ cp+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ l4+24(FP), R8
	MOVQ r+32(FP), DI
	XORQ BX, BX
	MOVQ DI, R12

fcol:
	CMPQ BX, CX
	JGE  fdone
	MOVQ (SI)(BX*8), R10
	MOVQ 8(SI)(BX*8), R11
	VMOVUPD (R12), Y0
	VPTEST Y0, Y0
	JZ   fnext
	MOVQ R10, R9
	SHLQ $5, R9
	ADDQ R8, R9

floop:
	CMPQ R10, R11
	JGE  fnext
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y1
	VFNMADD231PD (R9), Y0, Y1
	VMOVUPD Y1, (DI)(AX*1)
	ADDQ $32, R9
	INCQ R10
	JMP  floop

fnext:
	ADDQ $32, R12
	INCQ BX
	JMP  fcol

fdone:
	VZEROUPPER
	RET

// func bwd4FMA(n int, cp *int, idx *int32, l4, r *float64)
//
// The backward pass L^T x = y of solve4 on an interleaved block: for each
// column j from n-1 down to 0, r[4j:4j+4] -= sum over the entries q of
// column j of l4[4q:4q+4] ∘ r[4i:4i+4], i = idx[q] (four accumulators,
// entries taken in turn, summed (0+1)+(2+3) at the end).
TEXT ·bwd4FMA(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), BX
	MOVQ cp+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ l4+24(FP), R8
	MOVQ r+32(FP), DI

bcol:
	DECQ BX
	JLT  bdone
	MOVQ (SI)(BX*8), R10
	MOVQ 8(SI)(BX*8), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ R10, R9
	SHLQ $5, R9
	ADDQ R8, R9

b4:
	MOVQ R11, AX
	SUBQ R10, AX
	CMPQ AX, $4
	JLT  b1
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y4
	VFMADD231PD (R9), Y4, Y0
	MOVLQSX 4(DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y5
	VFMADD231PD 32(R9), Y5, Y1
	MOVLQSX 8(DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y6
	VFMADD231PD 64(R9), Y6, Y2
	MOVLQSX 12(DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y7
	VFMADD231PD 96(R9), Y7, Y3
	ADDQ $128, R9
	ADDQ $4, R10
	JMP  b4

b1:
	CMPQ R10, R11
	JGE  bsum
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y4
	VFMADD231PD (R9), Y4, Y0
	ADDQ $32, R9
	INCQ R10
	JMP  b1

bsum:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	MOVQ BX, AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y4
	VSUBPD Y0, Y4, Y4
	VMOVUPD Y4, (DI)(AX*1)
	JMP  bcol

bdone:
	VZEROUPPER
	RET

// func fwd4F32FMA(n int, cp *int, idx *int32, l4 *float32, r *float64)
//
// fwd4FMA with L's values in single precision: each 4-vector
// l4[4q:4q+4] is widened to double precision (exactly) and
// r[4i:4i+4] -= l ∘ r[4j:4j+4] in one fused multiply-add, as fwd4FMA.
TEXT ·fwd4F32FMA(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ cp+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ l4+24(FP), R8
	MOVQ r+32(FP), DI
	XORQ BX, BX
	MOVQ DI, R12

gcol:
	CMPQ BX, CX
	JGE  gdone
	MOVQ (SI)(BX*8), R10
	MOVQ 8(SI)(BX*8), R11
	VMOVUPD (R12), Y0
	VPTEST Y0, Y0
	JZ   gnext
	MOVQ R10, R9
	SHLQ $4, R9
	ADDQ R8, R9

gloop:
	CMPQ R10, R11
	JGE  gnext
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD (R9), Y2
	VMOVUPD (DI)(AX*1), Y1
	VFNMADD231PD Y2, Y0, Y1
	VMOVUPD Y1, (DI)(AX*1)
	ADDQ $16, R9
	INCQ R10
	JMP  gloop

gnext:
	ADDQ $32, R12
	INCQ BX
	JMP  gcol

gdone:
	VZEROUPPER
	RET

// func bwd4F32FMA(n int, cp *int, idx *int32, l4 *float32, r *float64)
//
// bwd4FMA with L's values in single precision, widened exactly to double
// precision: the same four accumulators, entries taken in turn, summed
// (0+1)+(2+3).
TEXT ·bwd4F32FMA(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), BX
	MOVQ cp+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ l4+24(FP), R8
	MOVQ r+32(FP), DI

hcol:
	DECQ BX
	JLT  hdone
	MOVQ (SI)(BX*8), R10
	MOVQ 8(SI)(BX*8), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ R10, R9
	SHLQ $4, R9
	ADDQ R8, R9

h4:
	MOVQ R11, AX
	SUBQ R10, AX
	CMPQ AX, $4
	JLT  h1
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD (R9), Y8
	VMOVUPD (DI)(AX*1), Y4
	VFMADD231PD Y8, Y4, Y0
	MOVLQSX 4(DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD 16(R9), Y9
	VMOVUPD (DI)(AX*1), Y5
	VFMADD231PD Y9, Y5, Y1
	MOVLQSX 8(DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD 32(R9), Y10
	VMOVUPD (DI)(AX*1), Y6
	VFMADD231PD Y10, Y6, Y2
	MOVLQSX 12(DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD 48(R9), Y11
	VMOVUPD (DI)(AX*1), Y7
	VFMADD231PD Y11, Y7, Y3
	ADDQ $64, R9
	ADDQ $4, R10
	JMP  h4

h1:
	CMPQ R10, R11
	JGE  hsum
	MOVLQSX (DX)(R10*4), AX
	SHLQ $5, AX
	VCVTPS2PD (R9), Y8
	VMOVUPD (DI)(AX*1), Y4
	VFMADD231PD Y8, Y4, Y0
	ADDQ $16, R9
	INCQ R10
	JMP  h1

hsum:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	MOVQ BX, AX
	SHLQ $5, AX
	VMOVUPD (DI)(AX*1), Y4
	VSUBPD Y0, Y4, Y4
	VMOVUPD Y4, (DI)(AX*1)
	JMP  hcol

hdone:
	VZEROUPPER
	RET

// func madd4FMA32(t, v0, v1, v2, v3 *float32, n int, s0, s1, s2, s3 float32, first bool)
//
// madd4FMA in single precision: t[i] = (first ? 0 : t[i]) + s0·v0[i] +
// s1·v1[i] + s2·v2[i] + s3·v3[i], each term a fused multiply-add, for
// i < n, with subnormal inputs read as zero and subnormal results flushed
// to zero (MXCSR DAZ and FTZ, restored on return): the far entries of an
// inverse underflow single precision, and subnormal arithmetic is some
// hundred times slower.
TEXT ·madd4FMA32(SB), NOSPLIT, $8-65
	STMXCSR 0(SP)
	MOVL 0(SP), R12
	MOVL R12, R13
	ORL  $0x8040, R13
	MOVL R13, 4(SP)
	LDMXCSR 4(SP)
	MOVQ t+0(FP), DI
	MOVQ v0+8(FP), R8
	MOVQ v1+16(FP), R9
	MOVQ v2+24(FP), R10
	MOVQ v3+32(FP), R11
	MOVQ n+40(FP), CX
	VBROADCASTSS s0+48(FP), Y0
	VBROADCASTSS s1+52(FP), Y1
	VBROADCASTSS s2+56(FP), Y2
	VBROADCASTSS s3+60(FP), Y3
	MOVBQZX first+64(FP), AX

loop16:
	CMPQ CX, $16
	JLT  loop8
	TESTQ AX, AX
	JNZ  zero16
	VMOVUPS (DI), Y4
	VMOVUPS 32(DI), Y5
	JMP  fma16

zero16:
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5

fma16:
	VFMADD231PS (R8), Y0, Y4
	VFMADD231PS 32(R8), Y0, Y5
	VFMADD231PS (R9), Y1, Y4
	VFMADD231PS 32(R9), Y1, Y5
	VFMADD231PS (R10), Y2, Y4
	VFMADD231PS 32(R10), Y2, Y5
	VFMADD231PS (R11), Y3, Y4
	VFMADD231PS 32(R11), Y3, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $16, CX
	JMP  loop16

loop8:
	CMPQ CX, $8
	JLT  tail
	TESTQ AX, AX
	JNZ  zero8
	VMOVUPS (DI), Y4
	JMP  fma8

zero8:
	VXORPS Y4, Y4, Y4

fma8:
	VFMADD231PS (R8), Y0, Y4
	VFMADD231PS (R9), Y1, Y4
	VFMADD231PS (R10), Y2, Y4
	VFMADD231PS (R11), Y3, Y4
	VMOVUPS Y4, (DI)
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	SUBQ $8, CX

tail:
	TESTQ CX, CX
	JZ   done
	TESTQ AX, AX
	JNZ  zero1
	VMOVSS (DI), X4
	JMP  fma1

zero1:
	VXORPS X4, X4, X4

fma1:
	VFMADD231SS (R8), X0, X4
	VFMADD231SS (R9), X1, X4
	VFMADD231SS (R10), X2, X4
	VFMADD231SS (R11), X3, X4
	VMOVSS X4, (DI)
	ADDQ $4, DI
	ADDQ $4, R8
	ADDQ $4, R9
	ADDQ $4, R10
	ADDQ $4, R11
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	LDMXCSR 0(SP)
	RET

// func madd1FMA32(t, v *float32, n int, s float32, first bool)
//
// madd1FMA in single precision: t[i] = (first ? 0 : t[i]) + s·v[i] for
// i < n, with DAZ and FTZ as in madd4FMA32.
TEXT ·madd1FMA32(SB), NOSPLIT, $8-29
	STMXCSR 0(SP)
	MOVL 0(SP), R12
	MOVL R12, R13
	ORL  $0x8040, R13
	MOVL R13, 4(SP)
	LDMXCSR 4(SP)
	MOVQ t+0(FP), DI
	MOVQ v+8(FP), R8
	MOVQ n+16(FP), CX
	VBROADCASTSS s+24(FP), Y0
	MOVBQZX first+28(FP), AX

loop32:
	CMPQ CX, $32
	JLT  loop8
	TESTQ AX, AX
	JNZ  zero32
	VMOVUPS (DI), Y4
	VMOVUPS 32(DI), Y5
	VMOVUPS 64(DI), Y6
	VMOVUPS 96(DI), Y7
	JMP  fma32

zero32:
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

fma32:
	VFMADD231PS (R8), Y0, Y4
	VFMADD231PS 32(R8), Y0, Y5
	VFMADD231PS 64(R8), Y0, Y6
	VFMADD231PS 96(R8), Y0, Y7
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	ADDQ $128, DI
	ADDQ $128, R8
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JLT  tail
	TESTQ AX, AX
	JNZ  zero8
	VMOVUPS (DI), Y4
	JMP  fma8

zero8:
	VXORPS Y4, Y4, Y4

fma8:
	VFMADD231PS (R8), Y0, Y4
	VMOVUPS Y4, (DI)
	ADDQ $32, DI
	ADDQ $32, R8
	SUBQ $8, CX
	JMP  loop8

tail:
	TESTQ CX, CX
	JZ   done
	TESTQ AX, AX
	JNZ  zero1
	VMOVSS (DI), X4
	JMP  fma1

zero1:
	VXORPS X4, X4, X4

fma1:
	VFMADD231SS (R8), X0, X4
	VMOVSS X4, (DI)
	ADDQ $4, DI
	ADDQ $4, R8
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	LDMXCSR 0(SP)
	RET

// func madd4vFMA(t, v0, v1, v2, v3 *float64, n int, s *[16]float64, first bool)
//
// madd4FMA for four interleaved columns (factor4): for the 4-vectors
// i < n, t[i] = (first ? 0 : t[i]) + s[0:4]∘v0[i] + s[4:8]∘v1[i] +
// s[8:12]∘v2[i] + s[12:16]∘v3[i], each term a fused multiply-add in that
// order (lane c the same operations as madd4FMA on column c).
TEXT ·madd4vFMA(SB), NOSPLIT, $0-57
	MOVQ t+0(FP), DI
	MOVQ v0+8(FP), R8
	MOVQ v1+16(FP), R9
	MOVQ v2+24(FP), R10
	MOVQ v3+32(FP), R11
	MOVQ n+40(FP), CX
	MOVQ s+48(FP), AX
	VMOVUPD 0(AX), Y0
	VMOVUPD 32(AX), Y1
	VMOVUPD 64(AX), Y2
	VMOVUPD 96(AX), Y3
	MOVBQZX first+56(FP), AX

vloop2:
	CMPQ CX, $2
	JLT  vtail
	TESTQ AX, AX
	JNZ  vzero2
	VMOVUPD (DI), Y4
	VMOVUPD 32(DI), Y5
	JMP  vfma2

vzero2:
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5

vfma2:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD 32(R8), Y0, Y5
	VFMADD231PD (R9), Y1, Y4
	VFMADD231PD 32(R9), Y1, Y5
	VFMADD231PD (R10), Y2, Y4
	VFMADD231PD 32(R10), Y2, Y5
	VFMADD231PD (R11), Y3, Y4
	VFMADD231PD 32(R11), Y3, Y5
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, R11
	SUBQ $2, CX
	JMP  vloop2

vtail:
	TESTQ CX, CX
	JZ   vdone
	TESTQ AX, AX
	JNZ  vzero1
	VMOVUPD (DI), Y4
	JMP  vfma1

vzero1:
	VXORPD Y4, Y4, Y4

vfma1:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD (R9), Y1, Y4
	VFMADD231PD (R10), Y2, Y4
	VFMADD231PD (R11), Y3, Y4
	VMOVUPD Y4, (DI)

vdone:
	VZEROUPPER
	RET

// func madd1vFMA(t, v *float64, n int, s *[4]float64, first bool)
//
// madd1FMA for four interleaved columns: t[i] = (first ? 0 : t[i]) +
// s∘v[i] for the 4-vectors i < n.
TEXT ·madd1vFMA(SB), NOSPLIT, $0-33
	MOVQ t+0(FP), DI
	MOVQ v+8(FP), R8
	MOVQ n+16(FP), CX
	MOVQ s+24(FP), AX
	VMOVUPD 0(AX), Y0
	MOVBQZX first+32(FP), AX

wloop4:
	CMPQ CX, $4
	JLT  wtail
	TESTQ AX, AX
	JNZ  wzero4
	VMOVUPD (DI), Y4
	VMOVUPD 32(DI), Y5
	VMOVUPD 64(DI), Y6
	VMOVUPD 96(DI), Y7
	JMP  wfma4

wzero4:
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

wfma4:
	VFMADD231PD (R8), Y0, Y4
	VFMADD231PD 32(R8), Y0, Y5
	VFMADD231PD 64(R8), Y0, Y6
	VFMADD231PD 96(R8), Y0, Y7
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	VMOVUPD Y6, 64(DI)
	VMOVUPD Y7, 96(DI)
	ADDQ $128, DI
	ADDQ $128, R8
	SUBQ $4, CX
	JMP  wloop4

wtail:
	TESTQ CX, CX
	JZ   wdone
	TESTQ AX, AX
	JNZ  wzero1
	VMOVUPD (DI), Y4
	JMP  wfma1

wzero1:
	VXORPD Y4, Y4, Y4

wfma1:
	VFMADD231PD (R8), Y0, Y4
	VMOVUPD Y4, (DI)
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JMP  wtail

wdone:
	VZEROUPPER
	RET

// The 4×4 transpose of Y0..Y3 (rows) into Y0..Y3 (columns), Y4..Y7
// scratch.
#define TRANSPOSE4 \
	VUNPCKLPD  Y1, Y0, Y4 \
	VUNPCKHPD  Y1, Y0, Y5 \
	VUNPCKLPD  Y3, Y2, Y6 \
	VUNPCKHPD  Y3, Y2, Y7 \
	VPERM2F128 $0x20, Y6, Y4, Y0 \
	VPERM2F128 $0x20, Y7, Y5, Y1 \
	VPERM2F128 $0x31, Y6, Y4, Y2 \
	VPERM2F128 $0x31, Y7, Y5, Y3

// func div4AVX(n int, r, d0, d1, d2, d3 *float64)
//
// r[4j+c] /= dc[j] for j < n, n a multiple of 4 (AVX): four j at a time,
// the pivots of the four columns transposed into place, one correctly
// rounded division per lane (the bits of the scalar division).
TEXT ·div4AVX(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ r+8(FP), DI
	MOVQ d0+16(FP), R8
	MOVQ d1+24(FP), R9
	MOVQ d2+32(FP), R10
	MOVQ d3+40(FP), R11
	XORQ AX, AX

dloop:
	CMPQ AX, CX
	JGE  ddone
	VMOVUPD (R8)(AX*8), Y0
	VMOVUPD (R9)(AX*8), Y1
	VMOVUPD (R10)(AX*8), Y2
	VMOVUPD (R11)(AX*8), Y3
	TRANSPOSE4
	VMOVUPD (DI), Y8
	VMOVUPD 32(DI), Y9
	VMOVUPD 64(DI), Y10
	VMOVUPD 96(DI), Y11
	VDIVPD  Y0, Y8, Y8
	VDIVPD  Y1, Y9, Y9
	VDIVPD  Y2, Y10, Y10
	VDIVPD  Y3, Y11, Y11
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	ADDQ $4, AX
	ADDQ $128, DI
	JMP  dloop

ddone:
	VZEROUPPER
	RET

// func bcast4AVX(n int, r, v *float64)
//
// r[4i+c] = v[i] for i < n, c < 4 (AVX).
TEXT ·bcast4AVX(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ r+8(FP), DI
	MOVQ v+16(FP), SI
	XORQ AX, AX

bloop:
	CMPQ AX, CX
	JGE  bdone
	VBROADCASTSD (SI)(AX*8), Y0
	VMOVUPD Y0, (DI)
	INCQ AX
	ADDQ $32, DI
	JMP  bloop

bdone:
	VZEROUPPER
	RET

// func sum4AVX(n int, acc, r *float64)
//
// acc[i] = acc[i] + r[4i] + r[4i+1] + r[4i+2] + r[4i+3] for i < n, n a
// multiple of 4, added in that order (the bits of the scalar loop): four i
// at a time, the lanes transposed into place (AVX).
TEXT ·sum4AVX(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ acc+8(FP), SI
	MOVQ r+16(FP), DI
	XORQ AX, AX

sloop:
	CMPQ AX, CX
	JGE  sdone
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	TRANSPOSE4
	VMOVUPD (SI)(AX*8), Y8
	VADDPD  Y0, Y8, Y8
	VADDPD  Y1, Y8, Y8
	VADDPD  Y2, Y8, Y8
	VADDPD  Y3, Y8, Y8
	VMOVUPD Y8, (SI)(AX*8)
	ADDQ $4, AX
	ADDQ $128, DI
	JMP  sloop

sdone:
	VZEROUPPER
	RET

// func interleave4AVX(n int, r, u0, u1, u2, u3 *float64, back bool)
//
// r[4i+c] = uc[i] for i < n, n a multiple of 4, or (back) the reverse
// uc[i] = r[4i+c]: four rows at a time through a 4×4 transpose (AVX).
TEXT ·interleave4AVX(SB), NOSPLIT, $0-49
	MOVQ n+0(FP), CX
	MOVQ r+8(FP), DI
	MOVQ u0+16(FP), R8
	MOVQ u1+24(FP), R9
	MOVQ u2+32(FP), R10
	MOVQ u3+40(FP), R11
	MOVBLZX back+48(FP), DX
	XORQ AX, AX
	TESTQ DX, DX
	JNZ  iback

iloop:
	CMPQ AX, CX
	JGE  idone
	VMOVUPD (R8)(AX*8), Y0
	VMOVUPD (R9)(AX*8), Y1
	VMOVUPD (R10)(AX*8), Y2
	VMOVUPD (R11)(AX*8), Y3
	TRANSPOSE4
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $4, AX
	ADDQ $128, DI
	JMP  iloop

iback:
	CMPQ AX, CX
	JGE  idone
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	TRANSPOSE4
	VMOVUPD Y0, (R8)(AX*8)
	VMOVUPD Y1, (R9)(AX*8)
	VMOVUPD Y2, (R10)(AX*8)
	VMOVUPD Y3, (R11)(AX*8)
	ADDQ $4, AX
	ADDQ $128, DI
	JMP  iback

idone:
	VZEROUPPER
	RET

// func violMaxAVX(n int, ri, rh *float64, w float64) float64
//
// max(0, max_k ri[k] - w*rh[k]) over k < n, the product rounded before the
// difference as in Go (no fused multiply-add), so that it is violMaxGo's
// value to the bit: a maximum does not depend on the order. The running
// maximum is VMAXPD's second source, which it keeps when the difference is
// a NaN or an equal zero, as the scalar test a > max does.
TEXT ·violMaxAVX(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ ri+8(FP), SI
	MOVQ rh+16(FP), DI
	VBROADCASTSD w+24(FP), Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	XORQ AX, AX

vloop8:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  vloop4
	VMULPD  (DI)(AX*8), Y0, Y3
	VMOVUPD (SI)(AX*8), Y4
	VSUBPD  Y3, Y4, Y4
	VMAXPD  Y1, Y4, Y1
	VMULPD  32(DI)(AX*8), Y0, Y5
	VMOVUPD 32(SI)(AX*8), Y6
	VSUBPD  Y5, Y6, Y6
	VMAXPD  Y2, Y6, Y2
	MOVQ DX, AX
	JMP  vloop8

vloop4:
	LEAQ 4(AX), DX
	CMPQ DX, CX
	JGT  vreduce
	VMULPD  (DI)(AX*8), Y0, Y3
	VMOVUPD (SI)(AX*8), Y4
	VSUBPD  Y3, Y4, Y4
	VMAXPD  Y1, Y4, Y1
	MOVQ DX, AX

vreduce:
	VMAXPD       Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VMAXPD       X2, X1, X1
	VPERMILPD    $1, X1, X2
	VMAXPD       X2, X1, X1

vtail:
	CMPQ AX, CX
	JGE  vdone
	VMULSD (DI)(AX*8), X0, X3
	VMOVSD (SI)(AX*8), X4
	VSUBSD X3, X4, X4
	VMAXSD X1, X4, X1
	INCQ AX
	JMP  vtail

vdone:
	VMOVSD X1, ret+32(FP)
	VZEROUPPER
	RET
