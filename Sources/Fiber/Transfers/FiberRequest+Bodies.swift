import FiberRuntime
import Foundation

extension FiberRequest {
    /// The same request with `stream` as its body, read as it is sent (never whole
    /// into memory), and `Content-Type` set when given:
    ///
    /// ```swift
    /// request.body(.file(path: "/var/backups/db.tar"), contentType: "application/x-tar")
    /// request.body(.stream(length: size) { chunks() })      // made again for a retry or redirect
    /// request.body(.stream(once: upstream.body))            // read once
    /// ```
    ///
    /// A body that is not replayable (`HTTPRequestBody.isReplayable`) is not
    /// retried by `RetryInterceptor` and not resent by a 307 or 308 redirect (the
    /// 3xx is the response).
    public func body(_ stream: HTTPRequestBody, contentType: String? = nil) -> FiberRequest {
        var copy = self
        copy.body = nil
        copy.bodyStream = stream
        if let contentType { copy.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        return copy
    }

    /// The same request with the file at `path` as its body, streamed from disk in
    /// 256 KiB pieces with its size as `Content-Length`. A missing or unreadable file,
    /// or one whose size changes while it is sent, fails `send` with
    /// `FiberError.networkError` holding an `HTTPClientError` of kind `.requestBody`
    /// that names the path.
    public func body(fileAt path: String, contentType: String? = "application/octet-stream") -> FiberRequest {
        body(.file(path: path), contentType: contentType)
    }

    /// The same request with `items` as an `application/x-www-form-urlencoded` body
    /// (encoded as `FormURLEncoding` says), and that `Content-Type`.
    public func formBody(_ items: [URLFormItem]) -> FiberRequest {
        body(Data(FormURLEncoding.encode(items).utf8), contentType: FormURLEncoding.contentType)
    }

    /// The same request with `fields` as a form body, in the order given.
    public func formBody(_ fields: KeyValuePairs<String, String>) -> FiberRequest {
        formBody(fields.map { URLFormItem(name: $0.key, value: $0.value) })
    }

    /// The same request with `form` as a `multipart/form-data` body, streamed part
    /// after part (files from disk), and its `Content-Type` with the boundary. A
    /// boundary given to the form that occurs in one of its parts in memory makes
    /// `send` throw `FiberError.encodingError` with `MultipartForm.BoundaryError`.
    public func multipartBody(_ form: MultipartForm) -> FiberRequest {
        do {
            let (stream, contentType) = try form.encoded()
            return body(stream, contentType: contentType)
        } catch {
            var copy = self
            copy.buildError = copy.buildError ?? .encodingError(underlying: error)
            return copy
        }
    }

    /// The same request with `report` called as its body goes out: at most once every
    /// `interval` (default 100 ms), and always with the last count once the whole body
    /// is out. `report` runs on the request's event loop: keep it short.
    public func onUploadProgress(every interval: Duration = .milliseconds(100),
                                 _ report: @escaping @Sendable (TransferProgress) -> Void) -> FiberRequest {
        var copy = self
        copy.uploadProgress = ProgressReporter(interval: interval, report: report)
        return copy
    }

    /// The same request, and its upload's progress as an `AsyncStream`: reports at most
    /// once every `interval` (default 100 ms) and the last count always. A reader that
    /// falls behind gets the newest report, not a backlog. The stream ends when the call
    /// that sends the request (`Fiber.send`, `stream`, or a method built on them) returns
    /// or throws, after any retries (whose bytes count from zero again), or when the
    /// request is dropped unsent. One stream serves one call: send the request again and
    /// its reports have nowhere to go.
    ///
    /// ```swift
    /// let (request, progress) = fiber.request(.put, "/files/a").body(fileAt: path).uploadProgressStream()
    /// async let response = fiber.send(request)
    /// for await step in progress { print(step.bytes, step.fraction ?? 0) }
    /// let status = try await response.statusCode
    /// ```
    public func uploadProgressStream(every interval: Duration = .milliseconds(100))
        -> (request: FiberRequest, progress: AsyncStream<TransferProgress>) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        var copy = self
        copy.uploadProgress = ProgressReporter(interval: interval, report: { continuation.yield($0) },
                                               ended: { continuation.finish() })
        return (copy, stream)
    }

    /// The same request with its streamed body read into memory (`body`), for an
    /// interceptor that must see all of it (a signature, an encryption). A request
    /// whose body is in memory already comes back as it is.
    ///
    /// - Throws: `FiberError.encodingError` with the `HTTPClientError` (`.requestBody`)
    ///   when the body is longer than `maxBytes`, a file cannot be read, or a one-shot
    ///   stream was read already.
    public func collectingBody(upTo maxBytes: Int) async throws(FiberError) -> FiberRequest {
        guard let stream = bodyStream else { return self }
        do {
            let data = try await stream.collected(upTo: maxBytes, on: eventLoop)
            var copy = self
            copy.bodyStream = nil
            copy.body = data
            return copy
        } catch {
            throw .encodingError(underlying: error)
        }
    }

    /// The body's length when known without reading it (nil without a body, or for a
    /// stream of unknown length or a file).
    var knownBodyLength: Int? { body?.count ?? bodyStream?.knownLength }
}
