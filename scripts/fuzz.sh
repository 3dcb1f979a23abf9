#!/usr/bin/env bash
# Builds the libFuzzer targets of the parsers and runs each for RUNS executions (default 1000000).
#   scripts/fuzz.sh [RUNS] [TARGET...]   targets: signaling rtp stun turn framing iceurl sdp depacketizer mediafiles hls sigv4 json pipe (default all)
# Crashes are written to .build-fuzz/crash-*; the corpora grow in .build-fuzz/corpus-*; seeds kept in Fuzz/Seeds/<target>/
# are copied in first. FUZZ_SECONDS=N stops each target after N seconds too (libFuzzer -max_total_time).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"; shift || true
targets=("$@"); [ ${#targets[@]} -eq 0 ] && targets=(signaling rtp stun turn framing iceurl sdp depacketizer mediafiles hls sigv4 json)
mkdir -p .build-fuzz
# libFuzzer and ASan report crashes; Swift's backtracer would race ASan and can leave its helper holding the log pipe.
export SWIFT_BACKTRACE=enable=no
wire_sources=$(find Sources/StageWire -name '*.swift')
# StageProtocol imports StageWire (MediaKind) and StageLayout (the composition layout): both as
# static modules in $1, for the targets that build StageProtocol.
protocol_dependencies() {
  local dir="$1"; mkdir -p "$dir"
  local features=(-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny)
  swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageWire "${features[@]}" \
    -emit-module -emit-module-path "$dir/StageWire.swiftmodule" -emit-library -static -o "$dir/libStageWire.a" $wire_sources
  swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageLayout -package-name Proscenium "${features[@]}" \
    -emit-module -emit-module-path "$dir/StageLayout.swiftmodule" -emit-library -static -o "$dir/libStageLayout.a" \
    $(find Sources/StageLayout -name '*.swift')
}
for target in "${targets[@]}"; do
  corpus=".build-fuzz/corpus-$target"; mkdir -p "$corpus"
  case "$target" in
    signaling)
      cp Tests/StageProtocolTests/Fixtures/client/*.json Tests/StageProtocolTests/Fixtures/server/*.json "$corpus/"
      dir=.build-fuzz/signaling; protocol_dependencies "$dir"
      swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageProtocol -use-ld=lld \
        -I "$dir" -L "$dir" -lStageWire -lStageLayout \
        $(find Sources/StageProtocol -name "*.swift") Fuzz/SignalingFuzz.swift -o .build-fuzz/signaling-fuzz
      max_len=4096 ;;
    rtp)  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireRTPFuzz.swift -o .build-fuzz/rtp-fuzz; max_len=1500 ;;
    stun) swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireSTUNFuzz.swift -o .build-fuzz/stun-fuzz; max_len=2048 ;;
    turn) swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireTURNFuzz.swift -o .build-fuzz/turn-fuzz; max_len=2048 ;;
    framing) swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireStreamFramingFuzz.swift -o .build-fuzz/framing-fuzz; max_len=4096 ;;
    iceurl)
      printf 'turn:[2001:db8::1]:3478?transport=tcp' > "$corpus/seed-turn"; printf 'stun:192.0.2.1' > "$corpus/seed-stun"
      swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireICEServerURLFuzz.swift -o .build-fuzz/iceurl-fuzz; max_len=1200 ;;
    sdp)  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireSDPFuzz.swift -o .build-fuzz/sdp-fuzz; max_len=8192 ;;
    depacketizer)
      # StageWire as its own module, then StageMedia's RTP and Jitter folders and EncodedVideoFrame (no C imports) with the harness.
      wire=.build-fuzz/depacketizer; mkdir -p "$wire"
      features=(-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny)
      swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire "${features[@]}" \
        -emit-module -emit-module-path "$wire/StageWire.swiftmodule" -emit-library -static -o "$wire/libStageWire.a" $wire_sources
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageMedia "${features[@]}" -use-ld=lld \
        -I "$wire" -L "$wire" -lStageWire \
        Sources/StageMedia/RTP/*.swift Sources/StageMedia/Jitter/*.swift Sources/StageMedia/Codec/EncodedVideoFrame.swift Fuzz/MediaDepacketizerFuzz.swift -o .build-fuzz/depacketizer-fuzz
      # 1 KB holds 512 pseudo packets (the harness's cap), eight times the video buffer's bound; at 4 KB the grown
      # corpus's inputs (most near 4 KB) ran at 850 exec/s, at 1 KB 1,500–2,000 (docs/FUZZING.md).
      max_len=1024 ;;
    mediafiles)
      # Seeds: a two-frame 4×2 Y4M stream and a four-sample mono WAV.
      printf 'YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\nFRAME\n0123456789abFRAME Ixyz\nABCDEFGHIJKL' > "$corpus/seed.y4m"
      printf 'RIFF\x2c\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x80\xbb\0\0\0\x77\x01\0\x02\0\x10\0data\x08\0\0\0\x01\0\x02\0\x03\0\x04\0' > "$corpus/seed.wav"
      # StageMedia's frames and files as a module, then StageDevices' file sources (no C modules) with the harness.
      dir=.build-fuzz/mediafiles; mkdir -p "$dir"
      features=(-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny)
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -enable-testing -module-name StageMedia "${features[@]}" \
        -emit-module -emit-module-path "$dir/StageMedia.swiftmodule" -emit-library -static -o "$dir/libStageMedia.a" \
        Sources/StageMedia/VideoFrame.swift Sources/StageMedia/Files/*.swift
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageDevices "${features[@]}" -use-ld=lld \
        -I "$dir" -L "$dir" -lStageMedia -lswiftGlibc \
        Sources/StageDevices/{MediaDeviceError,Cameras/VideoSource,Cameras/FileCamera,Microphones/AudioSource,Microphones/FileMicrophone}.swift \
        Fuzz/MediaFilesFuzz.swift -o .build-fuzz/mediafiles-fuzz
      max_len=4096 ;;
    hls)
      # Seeds: a chunk stream (init, part) and a blocking-reload query.
      printf '{"kind":"init","rendition":0,"size":2}\nab{"duration":0.3,"independent":true,"kind":"part","rendition":0,"size":3,"startsSegment":true}\nxyz' > "$corpus/seed-chunks"
      printf '_HLS_msn=11&_HLS_part=3' > "$corpus/seed-query"
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageHLS -use-ld=lld \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
        $(find Sources/StageHLS -name '*.swift') Fuzz/HLSFuzz.swift -o .build-fuzz/hls-fuzz
      max_len=4096 ;;
    sigv4)
      # StageSigV4 with Fuzz/Support/CryptoShim.swift as its `Crypto` (swift-crypto needs BoringSSL's C targets;
      # the shim is built without instrumentation).
      # No AddressSanitizer here: SigV4.swift and the harness use no unsafe pointers but the input's copy, Swift traps
      # on out-of-bounds and overflow itself, and ASan cost more than half of each input (590 vs 1,330 exec/s).
      dir=.build-fuzz/sigv4; mkdir -p "$dir"
      swiftc -O -parse-as-library -swift-version 6 -module-name Crypto -emit-module -emit-module-path "$dir/Crypto.swiftmodule" \
        -emit-library -static -o "$dir/libCrypto.a" Fuzz/Support/CryptoShim.swift
      swiftc -sanitize=fuzzer -parse-as-library -O -swift-version 6 -module-name StageSigV4 -use-ld=lld \
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny -I "$dir" -L "$dir" -lCrypto \
        Sources/StageSigV4/SigV4.swift Fuzz/SigV4Fuzz.swift -o .build-fuzz/sigv4-fuzz
      # SigV4.swift has no size limit of its own (the HTTP server bounds header sizes before it); 1 KB holds an
      # Authorization header with several signed headers, a query and a body. 990 exec/s at 4 KB, 2,300 at 1 KB.
      max_len=1024 ;;
    json)
      # StageProtocol (@testable) as its own module; StageServer's control-plane request readers (pure Foundation)
      # with Fuzz/Support/HTTPTypesShim.swift for APIError's HTTPResponse.Status. Seeds sit at the readers' limits.
      dir=.build-fuzz/json; mkdir -p "$dir"
      cp Tests/StageProtocolTests/Fixtures/client/*.json "$corpus/"
      features=(-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny)
      swiftc -O -parse-as-library -swift-version 6 -module-name HTTPTypes -emit-module -emit-module-path "$dir/HTTPTypes.swiftmodule" \
        -emit-library -static -o "$dir/libHTTPTypes.a" Fuzz/Support/HTTPTypesShim.swift
      protocol_dependencies "$dir"
      swiftc -sanitize=fuzzer,address -parse-as-library -O -enable-testing -module-name StageProtocol "${features[@]}" \
        -I "$dir" -emit-module -emit-module-path "$dir/StageProtocol.swiftmodule" -emit-library -static -o "$dir/libStageProtocol.a" \
        $(find Sources/StageProtocol -name '*.swift')
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageServer "${features[@]}" -use-ld=lld \
        -I "$dir" -L "$dir" -lStageProtocol -lStageLayout -lStageWire -lHTTPTypes \
        Sources/StageServer/ControlPlane/{RequestJSON,JSONBodyShape,RequestFields,RequestFields+Shapes,FieldRules,APIError}.swift \
        Sources/StageServer/Support/Identifiers.swift Fuzz/JSONFuzz.swift -o .build-fuzz/json-fuzz
      max_len=16384 ;;
    pipe)
      # Seeds: an RTP packet and an RTCP receiver report as plaintexts to protect (check 1), and one to change (check 2).
      printf '\x01\x80\x60\x00\x01\x00\x00\x0b\xb8\x50\x49\x50\x45payload' > "$corpus/seed-rtp"
      printf '\x01\x81\xc9\x00\x07\x50\x49\x50\x45abcdefghijklmnopqrstuvwx' > "$corpus/seed-rtcp"
      printf '\x02\x14\x01\x80\x60\x00\x02\x00\x00\x0b\xb8\x50\x49\x50\x45payload' > "$corpus/seed-changed"
      # StageWire as its own module; StageTransport's SRTP (libsrtp, and OpenSSL's GCM for what it seals), drop reasons and the pipe's receive path
      # (no NIO) with Fuzz/Support/MetricsShim.swift as `Metrics`; libsrtp2 is linked as Debian ships it.
      dir=.build-fuzz/pipe; mkdir -p "$dir"
      features=(-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny)
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageWire "${features[@]}" \
        -emit-module -emit-module-path "$dir/StageWire.swiftmodule" -emit-library -static -o "$dir/libStageWire.a" $wire_sources
      swiftc -O -parse-as-library -swift-version 6 -module-name Metrics -emit-module -emit-module-path "$dir/Metrics.swiftmodule" \
        -emit-library -static -o "$dir/libMetrics.a" Fuzz/Support/MetricsShim.swift
      swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name StageTransport "${features[@]}" -use-ld=lld \
        -I "$dir" -I Sources/CSRTP -I Sources/COpenSSL -L "$dir" -lStageWire -lMetrics \
        Sources/StageTransport/{MediaDropReason,SRTPSession,SRTPAEAD,SRTPIndexWindow,SRTPKeyingMaterial,PipeDatagram}.swift Fuzz/PipeDatagramFuzz.swift \
        -o .build-fuzz/pipe-fuzz
      max_len=2100 ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  if [ -d "Fuzz/Seeds/$target" ]; then cp Fuzz/Seeds/"$target"/* "$corpus/"; fi
  time_limit=(); [ -n "${FUZZ_SECONDS:-}" ] && time_limit=(-max_total_time="$FUZZ_SECONDS")
  echo "== $target: $runs runs"
  # The full libFuzzer output goes to .build-fuzz/log-$target.txt; the summary (final DONE line with cov/ft/corp/exec/s,
  # the stat:: lines, errors) to the terminal.
  ".build-fuzz/$target-fuzz" -runs="$runs" "${time_limit[@]}" -max_len="$max_len" -print_final_stats=1 -artifact_prefix=.build-fuzz/ "$corpus" \
    2>&1 | tee ".build-fuzz/log-$target.txt" | grep -E '^(Done|==|#[0-9]+[[:space:]]+(INITED|DONE)|stat::)|ERROR|crash' || true
done
