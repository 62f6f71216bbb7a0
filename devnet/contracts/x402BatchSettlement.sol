// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice The deposit collector's entry point, called by this contract only.
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external;
}

/**
 * @title x402BatchSettlement (local world build)
 * @notice Unidirectional payment channels for the x402 `batch-settlement` scheme. A payer deposits
 *         once into a channel; each paid call carries an EIP-712 voucher signed off chain that
 *         allows the receiver to claim up to a cumulative `maxClaimableAmount`. The receiver side
 *         claims many vouchers in one transaction (accounting only) and later settles what it
 *         claimed in one transfer. The payer gets back what was never claimed: at once through a
 *         cooperative refund, or alone through a timed withdrawal after the channel's delay.
 * @dev Written for the devnet from the x402 `batch-settlement` EVM scheme; its external interface
 *      (names, argument and result types, the `Settled` event) is the one the x402 EVM package
 *      calls. The EIP-712 domain is `x402 Batch Settlement`, version `1`, this chain, this address,
 *      computed at every use: no constructor, no immutables, so the runtime code is the whole
 *      contract, placed at the package's address. Nothing here can move more than a payer signed:
 *      a claim never exceeds its voucher's `maxClaimableAmount`, nor the channel's balance.
 */
contract x402BatchSettlement {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// @notice One claim row: a payer's voucher and the channel's new cumulative claimed total.
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct PendingWithdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    /// @notice The only deposit collector this build accepts (ERC-3009 `receiveWithAuthorization`).
    address public constant ERC3009_DEPOSIT_COLLECTOR = 0x4020806089470a89826cB9fB1f4059150b550004;
    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH = keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// @dev secp256k1's order / 2: a signature with a higher `s` is the malleable twin of another.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    mapping(bytes32 channelId => ChannelState) private channelStates;
    mapping(bytes32 channelId => PendingWithdrawal) private withdrawals;
    mapping(bytes32 channelId => uint256) private refundNonces;
    mapping(address receiver => mapping(address token => ReceiverState)) private receiverStates;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 balance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimed, uint128 totalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount, uint256 nonce);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 initiatedAt);
    event WithdrawFinalized(bytes32 indexed channelId, uint128 amount);

    error ClaimExceedsBalance();
    error ClaimExceedsVoucher();
    error EmptyClaims();
    error InvalidAmount();
    error InvalidChannelConfig();
    error InvalidCollector();
    error InvalidNonce();
    error InvalidReceiverAuthorizerSignature();
    error InvalidVoucherSignature();
    error DepositNotReceived();
    error MixedReceiverAuthorizers();
    error NoPendingWithdrawal();
    error ReentrancyGuardReentrantCall();
    error TokenTransferFailed();
    error Unauthorized();
    error WithdrawalAlreadyPending();
    error WithdrawalExceedsAvailable();
    error WithdrawDelayNotElapsed();

    /// @dev Transient: cleared at the end of every transaction, whatever happens.
    bool private transient entered;

    /// @dev A token with transfer hooks could call back mid-transfer; one state change at a time.
    modifier nonReentrant() {
        if (entered) revert ReentrancyGuardReentrantCall();
        entered = true;
        _;
        entered = false;
    }

    // ---------------------------------------------------------------- deposits

    /**
     * @notice Deposits `amount` into the channel of `config` (created by its first deposit). The
     *         collector pulls the tokens with the payer's authorization in `collectorData`; the
     *         channel is credited only with what this contract actually received.
     */
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData) external nonReentrant {
        checkConfig(config);
        if (amount == 0) revert InvalidAmount();
        if (collector != ERC3009_DEPOSIT_COLLECTOR) revert InvalidCollector();
        bytes32 channelId = getChannelId(config);
        uint256 before = balanceOf(config.token);
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        if (balanceOf(config.token) < before + amount) revert DepositNotReceived();

        ChannelState storage channel = channelStates[channelId];
        if (channel.balance == 0 && channel.totalClaimed == 0) emit ChannelCreated(channelId, config);
        channel.balance += amount;
        emit Deposited(channelId, msg.sender, amount, channel.balance);
    }

    // ---------------------------------------------------------------- claims

    /// @notice Claims vouchers; the caller must be the receiver or receiver authorizer of every row.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyClaims();
        for (uint256 index = 0; index < voucherClaims.length; index++) {
            ChannelConfig calldata channel = voucherClaims[index].voucher.channel;
            if (msg.sender != channel.receiver && msg.sender != channel.receiverAuthorizer) revert Unauthorized();
            claimOne(voucherClaims[index]);
        }
    }

    /// @notice Claims vouchers with the rows' common receiver authorizer's `ClaimBatch` signature; anyone may relay it.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyClaims();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        for (uint256 index = 1; index < voucherClaims.length; index++) {
            if (voucherClaims[index].voucher.channel.receiverAuthorizer != authorizer) revert MixedReceiverAuthorizers();
        }
        if (!isValidSignature(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) revert InvalidReceiverAuthorizerSignature();
        for (uint256 index = 0; index < voucherClaims.length; index++) claimOne(voucherClaims[index]);
    }

    /// @dev Raises the channel's claimed total to the row's `totalClaimed`, never past the voucher
    ///      the payer signed nor the channel's balance. A row at or below what is already claimed
    ///      changes nothing (an old voucher, or a refund's zero-charge claim).
    function claimOne(VoucherClaim calldata row) private {
        ChannelConfig calldata config = row.voucher.channel;
        bytes32 channelId = getChannelId(config);
        ChannelState storage channel = channelStates[channelId];
        if (row.totalClaimed > row.voucher.maxClaimableAmount) revert ClaimExceedsVoucher();
        if (row.totalClaimed > channel.balance) revert ClaimExceedsBalance();
        bytes32 digest = getVoucherDigest(channelId, row.voucher.maxClaimableAmount);
        bool signed = config.payerAuthorizer != address(0)
            ? recover(digest, row.signature) == config.payerAuthorizer
            : isValidSignature(config.payer, digest, row.signature);
        if (!signed) revert InvalidVoucherSignature();
        if (row.totalClaimed <= channel.totalClaimed) return;

        uint128 claimed = row.totalClaimed - channel.totalClaimed;
        channel.totalClaimed = row.totalClaimed;
        receiverStates[config.receiver][config.token].totalClaimed += claimed;
        emit Claimed(channelId, msg.sender, claimed, row.totalClaimed);
    }

    // ---------------------------------------------------------------- settlement

    /// @notice Transfers everything claimed and not yet settled for `receiver` and `token` to `receiver`. Anyone may call it.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage state = receiverStates[receiver][token];
        uint128 amount = state.totalClaimed - state.totalSettled;
        if (amount == 0) return;
        state.totalSettled = state.totalClaimed;
        transferOut(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ---------------------------------------------------------------- refunds and withdrawals

    /// @notice Cooperative refund by the receiver or its authorizer: returns up to `amount` of the unclaimed escrow to the payer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert Unauthorized();
        refundChannel(config, getChannelId(config), amount);
    }

    /// @notice The same refund, authorized by the receiver authorizer's EIP-712 `Refund` signature for the channel's current nonce; anyone may relay it.
    function refundWithSignature(ChannelConfig calldata config, uint128 amount, uint256 nonce, bytes calldata receiverAuthorizerSignature)
        external
        nonReentrant
    {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonces[channelId]) revert InvalidNonce();
        if (!isValidSignature(config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature)) {
            revert InvalidReceiverAuthorizerSignature();
        }
        refundChannel(config, channelId, amount);
    }

    /// @dev The nonce advances first, so even a refund that moves nothing spends its signature.
    function refundChannel(ChannelConfig calldata config, bytes32 channelId, uint128 amount) private {
        if (amount == 0) revert InvalidAmount();
        uint256 nonce = refundNonces[channelId]++;
        ChannelState storage channel = channelStates[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 refunded = amount < available ? amount : available;
        if (refunded == 0) return;
        channel.balance -= refunded;
        PendingWithdrawal storage pending = withdrawals[channelId];
        if (pending.initiatedAt != 0) {
            if (refunded >= pending.amount) delete withdrawals[channelId];
            else pending.amount -= refunded;
        }
        transferOut(config.token, config.payer, refunded);
        emit Refunded(channelId, msg.sender, refunded, nonce);
        closeIfEmpty(channelId, config, channel);
    }

    /// @notice The payer's escape hatch: asks for `amount` of the unclaimed escrow back, payable after the channel's withdraw delay.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        onlyPayer(config);
        bytes32 channelId = getChannelId(config);
        if (amount == 0) revert InvalidAmount();
        ChannelState storage channel = channelStates[channelId];
        if (amount > channel.balance - channel.totalClaimed) revert WithdrawalExceedsAvailable();
        if (withdrawals[channelId].initiatedAt != 0) revert WithdrawalAlreadyPending();
        withdrawals[channelId] = PendingWithdrawal({amount: amount, initiatedAt: uint40(block.timestamp)});
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp));
    }

    /// @notice Completes a withdrawal once the delay has passed, capped at what is still unclaimed then.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        onlyPayer(config);
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal memory pending = withdrawals[channelId];
        if (pending.initiatedAt == 0) revert NoPendingWithdrawal();
        if (block.timestamp < uint256(pending.initiatedAt) + config.withdrawDelay) revert WithdrawDelayNotElapsed();
        delete withdrawals[channelId];
        ChannelState storage channel = channelStates[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 withdrawn = pending.amount < available ? pending.amount : available;
        channel.balance -= withdrawn;
        if (withdrawn > 0) transferOut(config.token, config.payer, withdrawn);
        emit WithdrawFinalized(channelId, withdrawn);
        closeIfEmpty(channelId, config, channel);
    }

    // ---------------------------------------------------------------- batching

    /// @notice Runs several calls to this contract in one transaction (a claim, then a refund); any failure reverts them all.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 index = 0; index < data.length; index++) {
            (bool ok, bytes memory returned) = address(this).delegatecall(data[index]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(returned, 32), mload(returned))
                }
            }
            results[index] = returned;
        }
    }

    // ---------------------------------------------------------------- views

    function channels(bytes32 channelId) external view returns (uint128 balance, uint128 totalClaimed) {
        ChannelState storage channel = channelStates[channelId];
        return (channel.balance, channel.totalClaimed);
    }

    function pendingWithdrawals(bytes32 channelId) external view returns (uint128 amount, uint40 initiatedAt) {
        PendingWithdrawal storage pending = withdrawals[channelId];
        return (pending.amount, pending.initiatedAt);
    }

    function receivers(address receiver, address token) external view returns (uint128 totalClaimed, uint128 totalSettled) {
        ReceiverState storage state = receiverStates[receiver][token];
        return (state.totalClaimed, state.totalSettled);
    }

    /// @notice The next nonce a `refundWithSignature` must carry.
    function refundNonce(bytes32 channelId) external view returns (uint256) {
        return refundNonces[channelId];
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The channel's id: the EIP-712 hash of its config, bound to this chain and this contract.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                CHANNEL_CONFIG_TYPEHASH,
                config.payer,
                config.payerAuthorizer,
                config.receiver,
                config.receiverAuthorizer,
                config.token,
                config.withdrawDelay,
                config.salt
            )
        );
        return typedDataHash(structHash);
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// @notice The EIP-712 `ClaimBatch` digest the receiver authorizer signs: one `ClaimEntry` per row, in order.
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 index = 0; index < voucherClaims.length; index++) {
            VoucherClaim calldata row = voucherClaims[index];
            entries[index] = keccak256(
                abi.encode(CLAIM_ENTRY_TYPEHASH, getChannelId(row.voucher.channel), row.voucher.maxClaimableAmount, row.totalClaimed)
            );
        }
        return typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    // ---------------------------------------------------------------- internals

    function typedDataHash(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    function checkConfig(ChannelConfig calldata config) private pure {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0) || config.token == address(0)
                || config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY
        ) revert InvalidChannelConfig();
    }

    function onlyPayer(ChannelConfig calldata config) private view {
        if (msg.sender != config.payer && (config.payerAuthorizer == address(0) || msg.sender != config.payerAuthorizer)) revert Unauthorized();
    }

    function closeIfEmpty(bytes32 channelId, ChannelConfig calldata config, ChannelState storage channel) private {
        if (channel.balance == 0 && channel.totalClaimed == 0) emit ChannelClosed(channelId, config);
    }

    function balanceOf(address token) private view returns (uint256) {
        (bool ok, bytes memory returned) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || returned.length < 32) revert TokenTransferFailed();
        return abi.decode(returned, (uint256));
    }

    function transferOut(address token, address to, uint128 amount) private {
        (bool ok, bytes memory returned) = token.call(abi.encodeWithSelector(0xa9059cbb, to, uint256(amount)));
        if (!ok || (returned.length != 0 && !abi.decode(returned, (bool)))) revert TokenTransferFailed();
    }

    /// @dev ECDSA for an account without code, EIP-1271 `isValidSignature` for a contract (a smart wallet).
    function isValidSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (signer.code.length == 0) return signer != address(0) && recover(digest, signature) == signer;
        (bool ok, bytes memory returned) = signer.staticcall(abi.encodeWithSelector(0x1626ba7e, digest, signature));
        return ok && returned.length >= 32 && abi.decode(returned, (bytes4)) == 0x1626ba7e;
    }

    /// @dev A 65-byte (r, s, v) signature with a low `s`; address(0) for anything else.
    function recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
