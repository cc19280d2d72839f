package dev.tandem.rest.user;

import dev.tandem.user.UserService;
import dev.tandem.user.UserView;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;

import static dev.tandem.rest.representation.ProtobufRepresentation.PROTOBUF_VALUE;
import static dev.tandem.rest.representation.ProtobufRepresentation.X_PROTOBUF_VALUE;

/** CreateUser and GetUser of tandem.v1.StudyGroupService on their google.api.http routes. */
@RestController
@Tag(name = "StudyGroupService")
@RequestMapping(path = "/api/v1/users", produces = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
public class UserController {

    private final UserService users;

    public UserController(UserService users) {
        this.users = users;
    }

    @Operation(operationId = "CreateUser")
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping(consumes = {MediaType.APPLICATION_JSON_VALUE, X_PROTOBUF_VALUE, PROTOBUF_VALUE})
    public ResponseEntity<UserView> create(@RequestBody CreateUserRequest request) {
        UserView created = users.create(request.toCommand());
        return ResponseEntity.created(URI.create("/api/v1/users/" + created.id())).body(created);
    }

    @Operation(operationId = "GetUser")
    @GetMapping("/{id}")
    public UserView get(@PathVariable long id) {
        return users.get(id);
    }
}
