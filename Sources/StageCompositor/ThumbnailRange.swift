internal import CAV

/// Video range (ITU-R BT.601/709: Y 16…235, Cb/Cr 16…240) to full range (JFIF, ITU-T T.871:
/// 0…255) in place, by table: a thumbnail's blacks stay black instead of turning grey.
enum ThumbnailRange {
    static let luma: [UInt8] = (0..<256).map { value in
        UInt8(clamping: Int((Double(value - 16) * 255 / 219).rounded()))
    }
    static let chroma: [UInt8] = (0..<256).map { value in
        UInt8(clamping: Int((Double(value - 128) * 255 / 224 + 128).rounded()))
    }

    static func expand(_ frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        apply(luma, frame.pointee.data.0, stride: Int(frame.pointee.linesize.0), width: width, height: height)
        apply(chroma, frame.pointee.data.1, stride: Int(frame.pointee.linesize.1), width: chromaWidth, height: chromaHeight)
        apply(chroma, frame.pointee.data.2, stride: Int(frame.pointee.linesize.2), width: chromaWidth, height: chromaHeight)
    }

    private static func apply(_ table: [UInt8], _ plane: UnsafeMutablePointer<UInt8>?, stride: Int, width: Int, height: Int) {
        guard let plane else { return }
        table.withUnsafeBufferPointer { table in
            for row in 0..<height {
                let line = plane + row * stride
                for column in 0..<width { line[column] = table[Int(line[column])] }
            }
        }
    }
}
