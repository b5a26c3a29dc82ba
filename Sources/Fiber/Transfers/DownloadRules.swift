import FiberRuntime

/// What a download does with a response head: the rules of resuming with
/// `Range` and `If-Range` (RFC 9110 §14), as a pure function tested without I/O.
enum DownloadRules {
    /// What to do with the response.
    enum Decision: Equatable {
        /// Write the body from `offset` of the file; `truncate`: empty the file first (a
        /// download from zero). `total` is the whole file's size when known.
        case write(offset: Int, truncate: Bool, total: Int?)
        /// The file on disk is already whole: the server says the range starts at its end.
        case complete(total: Int)
        /// The server did not resume as asked (a range elsewhere, a 416 for a shorter
        /// file): download again from zero, without `Range`.
        case restart
        /// A status that is not a file: fail with it.
        case failStatus(Int)
        /// A response that breaks the rules (a 206 not asked for, a `Content-Range` that does not parse).
        case malformed(String)
    }

    /// The header fields that ask to resume at `offset` with `validator`.
    static func resumeFields(offset: Int, validator: String) -> [(String, String)] {
        [("Range", "bytes=\(offset)-"), ("If-Range", validator)]
    }

    /// The decision for a response with `status` and `headers` to a request that asked
    /// to resume at `resumeOffset` (nil: asked for the whole file).
    static func decide(status: Int, headers: HTTPHeaders, resumeOffset: Int?) -> Decision {
        let length = headers["Content-Length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        switch status {
        case 206:
            guard let range = ContentRange(headers["Content-Range"]) else {
                return .malformed("a 206 without a Content-Range of bytes: \(headers["Content-Range"] ?? "none")")
            }
            guard case .bytes(let first, _, let total) = range else {
                return .malformed("a 206 whose Content-Range has no range: \(headers["Content-Range"] ?? "")")
            }
            // The range asked for, or the whole resource from its start (as good as a 200).
            if first == (resumeOffset ?? 0) || first == 0 { return .write(offset: first, truncate: first == 0, total: total) }
            return resumeOffset == nil ? .malformed("a 206 starting at \(first), not asked for") : .restart
        case 416 where resumeOffset != nil:
            if case .unsatisfied(let total)? = ContentRange(headers["Content-Range"]), total == resumeOffset {
                return .complete(total: total)
            }
            return .restart
        case 200..<300:
            // A 200 to a resume: the server ignored the range or the validator changed. From zero.
            return .write(offset: 0, truncate: true, total: length)
        default:
            return .failStatus(status)
        }
    }

    /// A `Content-Range` field of bytes (RFC 9110 §14.4).
    enum ContentRange: Equatable {
        /// `bytes first-last/total`; total nil for `*`.
        case bytes(first: Int, last: Int, total: Int?)
        /// `bytes */total`, of a 416.
        case unsatisfied(total: Int)

        init?(_ field: String?) {
            guard let field, field.hasPrefix("bytes ") else { return nil }
            let spec = field.dropFirst(6).trimmingCharacters(in: .whitespaces)
            let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2 else { return nil }
            let totalText = halves[1]
            let total = totalText == "*" ? nil : Int(totalText)
            if totalText != "*", total == nil { return nil }
            if halves[0] == "*" {
                guard let total else { return nil }
                self = .unsatisfied(total: total)
                return
            }
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first,
                  total.map({ last < $0 }) ?? true else { return nil }
            self = .bytes(first: first, last: last, total: total)
        }
    }
}
