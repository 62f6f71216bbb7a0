// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice The part of Permit2's SignatureTransfer this proxy calls (Permit2's own types, by name).
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

/// @notice EIP-2612's permit, which USDC implements.
interface IERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

/**
 * @title x402UptoPermit2Proxy (local world build)
 * @notice The spender of an x402 `upto` payment. The payer signs a Permit2 witness transfer for a
 *         ceiling, naming this contract as spender and, in the witness, the payee (`to`), the one
 *         facilitator allowed to settle, and the earliest settlement time. The facilitator then
 *         settles any amount up to the ceiling, and the tokens can only go to `to`.
 * @dev Written for the devnet from the x402 `upto` EVM scheme; its external interface (names,
 *      argument types, events, errors) is the one the x402 EVM package's facilitator calls. Permit2's
 *      address is a constant, not a constructor argument, so the contract has no immutables and
 *      its runtime code can be placed at the address that package expects, without a deployment.
 */
contract x402UptoPermit2Proxy {
    /// @notice Permit2 at its canonical address (the same on every chain it is deployed to).
    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// @notice Completes Permit2's `PermitWitnessTransferFrom(...,` stub: the witness field, then
    ///         every referenced struct in alphabetical order, as EIP-712 encodes a type.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";

    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    /// @notice What the payer signed besides Permit2's own fields.
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    /// @notice An EIP-2612 permit of the token, for Permit2, signed by the payer (gas sponsoring).
    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    /// @dev Transient: cleared at the end of every transaction, whatever happens.
    bool private transient entered;

    /// @dev A token with transfer hooks could call back in mid-transfer; one settlement at a time.
    modifier nonReentrant() {
        if (entered) revert ReentrancyGuardReentrantCall();
        entered = true;
        _;
        entered = false;
    }

    /**
     * @notice Transfers `amount` (at most the signed ceiling) from `owner` to `witness.to`.
     * @param permit The signed Permit2 transfer: token, ceiling, nonce, deadline.
     * @param amount What to settle: the amount actually used.
     * @param owner The payer, who signed.
     * @param witness The payee, the facilitator allowed to settle, and the earliest time.
     * @param signature The payer's EIP-712 signature over the permit and the witness.
     */
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        transferUpTo(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /**
     * @notice The same settlement, after first using the payer's EIP-2612 permit to approve
     *         Permit2, for a payer who never approved it and has no gas to.
     * @dev A permit that fails (already used, or the allowance is already there) is not an
     *      error: the transfer that follows fails on its own if the allowance is missing.
     */
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        // The permit must approve exactly the signed ceiling, no more.
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20Permit(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        transferUpTo(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function transferUpTo(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        // Only the facilitator the payer named decides the amount.
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        // Permit2 refuses this too; refusing first gives the scheme's own reason.
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        // Without Permit2 the call below would revert with no reason; this names the problem.
        if (address(PERMIT2).code.length == 0) revert InvalidPermit2Address();

        // Permit2 recomputes the signed hash from these values: a witness that differs from what
        // the payer signed (another payee, another facilitator) fails its signature check.
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
