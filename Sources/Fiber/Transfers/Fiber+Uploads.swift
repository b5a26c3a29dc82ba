import FiberRuntime
import Foundation

extension Fiber {
    /// Sends `items` as an `application/x-www-form-urlencoded` body with `method`
    /// (default `POST`), through the interceptors.
    ///
    /// - Throws: as `send(_:)`.
    @discardableResult
    public func post(_ path: String, form items: [URLFormItem], method: HTTPMethod = .post,
                     headers: [String: String] = [:]) async throws -> FiberResponse {
        try await send(request(method, path, headers: headers).formBody(items))
    }

    /// Sends `form` as a `multipart/form-data` body with `method` (default `POST`),
    /// streamed part after part; `progress`, when given, hears about the upload at a bounded rate.
    ///
    /// - Throws: as `send(_:)`; `.encodingError` with `MultipartForm.BoundaryError`
    ///   when the form's given boundary cannot be used; `.networkError` with an
    ///   `HTTPClientError` of kind `.requestBody` when a file part is missing or changes size.
    @discardableResult
    public func post(_ path: String, multipart form: MultipartForm, method: HTTPMethod = .post,
                     headers: [String: String] = [:],
                     progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> FiberResponse {
        try await send(withProgress(request(method, path, headers: headers).multipartBody(form), progress))
    }

    /// Uploads the file at `filePath` as the body (streamed from disk, never whole in
    /// memory) with `method` (default `PUT`); `progress`, when given, hears about it at a bounded rate.
    ///
    /// - Throws: as `send(_:)`; `.networkError` with an `HTTPClientError` of kind
    ///   `.requestBody` that names the path when the file is missing, unreadable or
    ///   changes size while it is sent.
    @discardableResult
    public func upload(_ path: String, fileAt filePath: String, method: HTTPMethod = .put,
                       contentType: String = "application/octet-stream", headers: [String: String] = [:],
                       progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> FiberResponse {
        try await send(withProgress(request(method, path, headers: headers).body(fileAt: filePath, contentType: contentType),
                                    progress))
    }

    /// Uploads `data` as the body with `method` (default `POST`); `progress`, when given,
    /// hears about it at a bounded rate.
    ///
    /// - Throws: as `send(_:)`.
    @discardableResult
    public func upload(_ path: String, data: Data, method: HTTPMethod = .post,
                       contentType: String = "application/octet-stream", headers: [String: String] = [:],
                       progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> FiberResponse {
        try await send(withProgress(request(method, path, headers: headers).body(data, contentType: contentType), progress))
    }

    private func withProgress(_ request: FiberRequest, _ progress: (@Sendable (TransferProgress) -> Void)?) -> FiberRequest {
        guard let progress else { return request }
        return request.onUploadProgress(progress)
    }
}
