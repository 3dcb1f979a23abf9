import Foundation

/// Encoder and storage configuration shapes of the `ivs-realtime` model (2020-07-14).
extension IVSAPI {
    /// `Video`: the rendition a composition encodes.
    public struct Video: Codable, Sendable, Hashable {
        public var width: Int?
        public var height: Int?
        public var framerate: Double?
        public var bitrate: Int?
        public init(width: Int?, height: Int?, framerate: Double?, bitrate: Int?) {
            self.width = width
            self.height = height
            self.framerate = framerate
            self.bitrate = bitrate
        }
    }

    public struct EncoderConfiguration: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var video: Video?
        public var tags: [String: String]?
        public init(arn: String, name: String?, video: Video?, tags: [String: String]?) {
            self.arn = arn
            self.name = name
            self.video = video
            self.tags = tags
        }
    }

    public struct EncoderConfigurationSummary: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var tags: [String: String]?
        public init(arn: String, name: String?, tags: [String: String]?) {
            self.arn = arn
            self.name = name
            self.tags = tags
        }
    }

    public struct S3StorageConfiguration: Codable, Sendable, Hashable {
        public var bucketName: String
        public init(bucketName: String) { self.bucketName = bucketName }
    }

    /// `StorageConfiguration`; also its summary, which has the same members.
    public struct StorageConfiguration: Codable, Sendable, Hashable {
        public var arn: String
        public var name: String?
        public var s3: S3StorageConfiguration?
        public var tags: [String: String]?
        public init(arn: String, name: String?, s3: S3StorageConfiguration?, tags: [String: String]?) {
            self.arn = arn
            self.name = name
            self.s3 = s3
            self.tags = tags
        }
    }

    // Operation outputs.
    /// Create/GetEncoderConfiguration.
    public struct EncoderConfigurationResponse: Codable, Sendable {
        public var encoderConfiguration: EncoderConfiguration
        public init(encoderConfiguration: EncoderConfiguration) { self.encoderConfiguration = encoderConfiguration }
    }
    public struct ListEncoderConfigurationsResponse: Codable, Sendable {
        public var encoderConfigurations: [EncoderConfigurationSummary]
        public var nextToken: String?
        public init(encoderConfigurations: [EncoderConfigurationSummary], nextToken: String? = nil) {
            self.encoderConfigurations = encoderConfigurations
            self.nextToken = nextToken
        }
    }
    /// Create/GetStorageConfiguration.
    public struct StorageConfigurationResponse: Codable, Sendable {
        public var storageConfiguration: StorageConfiguration
        public init(storageConfiguration: StorageConfiguration) { self.storageConfiguration = storageConfiguration }
    }
    public struct ListStorageConfigurationsResponse: Codable, Sendable {
        public var storageConfigurations: [StorageConfiguration]
        public var nextToken: String?
        public init(storageConfigurations: [StorageConfiguration], nextToken: String? = nil) {
            self.storageConfigurations = storageConfigurations
            self.nextToken = nextToken
        }
    }
}
