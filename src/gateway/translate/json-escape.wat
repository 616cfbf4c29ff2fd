;; Whether bytes [0, n) of this module's memory, as the content of a JSON string, need an escape:
;; a byte below 0x20, a quote (0x22) or a backslash (0x5c). Sixteen bytes per step with SIMD;
;; the bytes after the last full step one at a time. The caller copies the bytes in first
;; (at most one page, 64 KiB, at a time). Compiled by `npm run gen` into json-escape.wasm.ts.
(module
  (memory (export "memory") 1)
  (func (export "needsEscape") (param $n i32) (result i32)
    (local $i i32)
    (local $end16 i32)
    (local $byte i32)
    (local $w v128)
    (local $hits v128)
    (local.set $end16 (i32.and (local.get $n) (i32.const -16)))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.ge_u (local.get $i) (local.get $end16)))
        (local.set $w (v128.load (local.get $i)))
        (local.set $hits
          (v128.or
            (local.get $hits)
            (v128.or
              (i8x16.lt_u (local.get $w) (i8x16.splat (i32.const 0x20)))
              (v128.or
                (i8x16.eq (local.get $w) (i8x16.splat (i32.const 0x22)))
                (i8x16.eq (local.get $w) (i8x16.splat (i32.const 0x5c)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (if (v128.any_true (local.get $hits))
      (then (return (i32.const 1))))
    (block $bytes_done
      (loop $bytes
        (br_if $bytes_done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $byte (i32.load8_u (local.get $i)))
        (if (i32.or
              (i32.lt_u (local.get $byte) (i32.const 0x20))
              (i32.or
                (i32.eq (local.get $byte) (i32.const 0x22))
                (i32.eq (local.get $byte) (i32.const 0x5c))))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $bytes)))
    (i32.const 0)))
