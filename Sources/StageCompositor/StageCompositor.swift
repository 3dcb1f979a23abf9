import CAV
import CYUV

/// Server-side composition: layout, canvas, audio mix, H.264/AAC encode, CMAF mux.
enum StageCompositor {
    static func linkedVersions() -> (avcodec: UInt32, yuvScale: Int32) {
        (avcodec_version(), I420Scale(nil, 0, nil, 0, nil, 0, 0, 0, nil, 0, nil, 0, nil, 0, 0, 0, kFilterBox))
    }
}
